/**
 * The approvals room: a permission dialog on the screen raised as an
 * approval and decided with the preset's keys after a fresh look
 * (`dialog-*.ts`); a hook's approvals (`hook-approvals.ts`: taken when the
 * agent's hook link says it looked, decided by a rule, a routed answer or a
 * hook's timeout); the approval rules both share.
 */
export { createDialogApprovals } from './dialog-approvals.js';
export { dialogApprovalsEnabled } from './dialog-checks.js';
export { createHookApprovals } from './hook-approvals.js';
export type { HookApprovals } from './hook-approvals.js';
export type { DialogApprovalHost, DialogContext } from './types.js';
