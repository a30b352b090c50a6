/**
 * Discord refuses edits in an archived thread (error 50083) until it is unarchived; sending a
 * message unarchives it by itself. Before the bot edits something it posted in a thread (a card,
 * the status message), an archived but unlocked thread is unarchived. Locked threads stay as
 * moderators left them (the caller tells the user instead).
 */
interface MaybeThread {
  isThread?(): boolean;
  archived?: boolean | null;
  locked?: boolean | null;
  setArchived?(archived: boolean, reason?: string): Promise<unknown>;
}

/** True when `channel` is a thread that is archived and locked (nothing can be edited there). */
export function isLockedThread(channel: unknown): boolean {
  const t = channel as MaybeThread | null;
  return !!t?.isThread?.() && !!t.archived && !!t.locked;
}

export async function unarchiveForEdit(channel: unknown, why: string): Promise<void> {
  const t = channel as MaybeThread | null;
  if (t?.isThread?.() && t.archived && !t.locked && t.setArchived) await t.setArchived(false, why);
}
