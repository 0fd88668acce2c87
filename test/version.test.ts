import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../src/version.js';

describe('VERSION', () => {
  it("is package.json's version", () => {
    const pkg = JSON.parse(
      readFileSync(
        path.join(import.meta.dirname, '..', 'package.json'),
        'utf8',
      ),
    ) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
