/**
 * Pure: a Claude Code teammate's permission prompt on its lead's screen
 * (docs/hooks.md "Agent teams"). Claude Code 2.1.197 shows a teammate's
 * prompt in the lead's pane, its first line naming the teammate (`Bash
 * command · from the bob agent`), and runs no PermissionRequest hook for it
 * (the lead's Notification hook says `worker_permission_prompt`). So the
 * lead's screen asks for it even while the lead's own hooks work.
 */

const FROM_TEAMMATE = /·[ \t]+from the (\S+) agent[ \t]*$/m;

/** The teammate a permission dialog's text is for; undefined for the lead's own. */
export function teammateOfDialog(text: string): string | undefined {
  return FROM_TEAMMATE.exec(text)?.[1];
}
