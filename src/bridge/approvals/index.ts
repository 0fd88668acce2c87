/**
 * The approvals room: a permission dialog on the screen raised as an
 * approval and decided with the preset's keys after a fresh look
 * (`dialog-*.ts`); a hook's approvals (`hook-approvals.ts`, reached through
 * the agent's hook link); the approval rules both share.
 */
export { createDialogApprovals } from './dialog-approvals.js';
export type { DialogApprovalHost, DialogContext } from './types.js';
