import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DENY_RULES,
  defaultPolicy,
} from '../../src/config/policy-defaults.js';
import { PolicySchema } from '../../src/config/policy.js';
import { ConfigSchema } from '../../src/config/schema.js';
import {
  evaluateApprovalRules,
  evaluatePolicy,
  toolSubjects,
} from '../../src/hooks/policy-verdict.js';

const bash = (command: string) => ({ tool: 'Bash', input: { command } });
const denied = (command: string) =>
  evaluatePolicy(bash(command), defaultPolicy());

describe('the default deny rules', () => {
  it.each([
    ['rm -rf /', 'rm-everything'],
    ['rm -fr /', 'rm-everything'],
    ['rm -r -f /', 'rm-everything'],
    ['rm -Rf ~', 'rm-everything'],
    ['rm -rf ~/', 'rm-everything'],
    ['rm -rf ~/*', 'rm-everything'],
    ['sudo rm -rf /', 'rm-everything'],
    ['rm -rf $HOME', 'rm-everything'],
    ['rm -rf "$HOME"', 'rm-everything'],
    ['rm -rf /*', 'rm-everything'],
    ['rm --recursive --force /', 'rm-everything'],
    ['cd build && rm -rf ~/*', 'rm-everything'],
    ['rm -rf --no-preserve-root /', 'rm-everything'],
    ['git push --force', 'force-push'],
    ['git push -f origin main', 'force-push'],
    ['git push origin +main', 'force-push'],
    ['git push --force-with-lease', 'force-push'],
    ['git -C repo push -uf origin x', 'force-push'],
    ['mkfs.ext4 /dev/sdb1', 'disk-wipe'],
    ['dd if=/dev/zero of=/dev/sda bs=1M', 'disk-wipe'],
    ['cat .env', 'secrets'],
    ['cat .env.local', 'secrets'],
    ['less ~/.ssh/id_ed25519', 'secrets'],
    ['cat ~/.aws/credentials', 'secrets'],
  ])('denies %j (%s)', (command, rule) => {
    const verdict = denied(command);
    expect(verdict.type).toBe('deny');
    if (verdict.type === 'deny') expect(verdict.rule.name).toBe(rule);
  });

  it.each([
    'rm -rf /tmp/build',
    'rm -rf ./dist',
    'rm -rf ~/project/node_modules',
    'rm -f /',
    'ls -R /',
    'echo "rm -rf /x"',
    'git push origin main',
    'git push -u origin feature-f',
    'git push --follow-tags',
    'git pull --force',
    'dd if=in.img of=out.img',
    'dd if=/dev/urandom of=/dev/null count=1',
    'cat .env.example',
    'cat ~/.ssh/id_rsa.pub',
    'node -e "console.log(process.env.HOME)"',
    'direnv allow .envrc',
    'npm test',
  ])('lets %j through', (command) => {
    expect(denied(command).type).toBe('pass');
  });

  it('checks file paths of other tools, not file contents', () => {
    const policy = defaultPolicy();
    expect(
      evaluatePolicy(
        { tool: 'Read', input: { file_path: '/repo/.env' } },
        policy,
      ).type,
    ).toBe('deny');
    expect(
      evaluatePolicy(
        {
          tool: 'Write',
          input: { file_path: '/repo/README.md', content: 'cat .env' },
        },
        policy,
      ).type,
    ).toBe('pass');
    // Bash rules are for Bash only.
    expect(
      evaluatePolicy(
        { tool: 'WebFetch', input: { url: 'https://x.test/rm -rf /' } },
        policy,
      ).type,
    ).toBe('pass');
  });
});

describe('policy config', () => {
  it('defaults: the documented deny rules, no ask rules, 120 s, deny', () => {
    const config = ConfigSchema.parse({});
    expect(config.policy.deny).toEqual(DEFAULT_DENY_RULES);
    expect(config.policy.ask).toEqual([]);
    expect(config.policy.allow).toEqual([]);
    expect(config.policy.askTimeoutSec).toBe(120);
    expect(config.policy.askDefault).toBe('deny');
  });

  it('"@default" keeps the defaults; a list without it replaces them', () => {
    const extended = PolicySchema.parse({
      deny: [
        '@default',
        {
          name: 'prune',
          pattern: 'docker\\s+system\\s+prune',
          reason: 'it deletes every image',
        },
      ],
    });
    expect(extended.deny.map((r) => r.name)).toEqual([
      ...DEFAULT_DENY_RULES.map((r) => r.name),
      'prune',
    ]);
    const replaced = PolicySchema.parse({ deny: ['\\bshutdown\\b'] });
    expect(replaced.deny).toEqual([
      { name: 'deny-0', pattern: '\\bshutdown\\b', ignoreCase: false },
    ]);
    expect(evaluatePolicy(bash('rm -rf /'), { ...replaced }).type).toBe('pass');
  });

  it('rule objects can target tools and ignore case', () => {
    const policy = PolicySchema.parse({
      deny: [],
      ask: [
        { tool: '^WebFetch$', pattern: 'internal\\.example', ignoreCase: true },
      ],
    });
    const verdict = evaluatePolicy(
      { tool: 'WebFetch', input: { url: 'https://INTERNAL.example/x' } },
      policy,
    );
    expect(verdict).toMatchObject({ type: 'ask', rule: { name: 'ask-0' } });
  });

  it('rejects bad regexes, unknown keys and bad defaults', () => {
    for (const bad of [
      { deny: ['('] },
      { deny: [{ pattern: 'x', colour: 'red' }] },
      { askDefault: 'maybe' },
      { askTimeoutSec: 0 },
      { extra: true },
    ]) {
      expect(
        ConfigSchema.safeParse({ policy: bad }).success,
        JSON.stringify(bad),
      ).toBe(false);
    }
  });

  it('subjects are the fields that say what a call does', () => {
    expect(
      toolSubjects({
        pattern: 'KEY',
        path: '/repo/.env',
        output_mode: 'content',
      }),
    ).toEqual(['/repo/.env', 'KEY']);
    expect(toolSubjects({ content: 'anything' })).toEqual([]);
  });
});

describe('approval rules', () => {
  const policy = PolicySchema.parse({
    allow: [
      { name: 'tests', tool: '^Bash$', pattern: '^npm (?:test|run lint)$' },
      { name: 'read-docs', tool: '^Read$', pattern: '^docs/' },
    ],
  });
  const decide = (tool: string, subject: string) =>
    evaluateApprovalRules({ tool, subjects: [subject] }, policy);

  it('allows what an allow rule matches, naming the rule', () => {
    expect(decide('Bash', 'npm test')).toMatchObject({
      decision: 'allow',
      rule: { name: 'tests' },
      subject: 'npm test',
    });
    expect(decide('Read', 'docs/intro.md')).toMatchObject({
      decision: 'allow',
      rule: { name: 'read-docs' },
    });
  });

  it('leaves everything else to the controller or a person', () => {
    expect(decide('Bash', 'npm publish')).toBeUndefined();
    expect(decide('Bash', 'npm test && npm publish')).toBeUndefined();
    // The rule is for Bash only.
    expect(decide('Write', 'npm test')).toBeUndefined();
    expect(decide('Bash', '')).toBeUndefined();
  });

  it('checks deny rules first: a denied command is never allowed by a rule', () => {
    const wide = PolicySchema.parse({ allow: ['^git '] });
    expect(
      evaluateApprovalRules(
        { tool: 'Bash', subjects: ['git push --force origin main'] },
        wide,
      ),
    ).toMatchObject({ decision: 'deny', rule: { name: 'force-push' } });
    expect(
      evaluateApprovalRules({ tool: 'Bash', subjects: ['git status'] }, wide),
    ).toMatchObject({ decision: 'allow', rule: { name: 'allow-0' } });
  });

  it('rejects a bad allow rule', () => {
    expect(
      ConfigSchema.safeParse({ policy: { allow: [{ pattern: '(' }] } }).success,
    ).toBe(false);
  });
});
