// The users the controller checks basic-auth credentials against, by BasicAuthIR.usersId, taken from every built
// DataPlaneIR (its basicAuthUsers). A Secret change reaches here with the next build; Envoy's config names users by
// id only, so it does not change with the passwords.
import type { BasicAuthUsersIR, HtpasswdUsers } from '../../ir/index.js';

export class BasicAuthUsers {
  #source: readonly BasicAuthUsersIR[] | undefined;
  #byId = new Map<string, { text: HtpasswdUsers; hashes: ReadonlyMap<string, string> }>();

  /** Takes the users of a new build (the same array again costs nothing). */
  update(list: readonly BasicAuthUsersIR[] | undefined): void {
    if (list === this.#source) return;
    this.#source = list;
    const next = new Map<string, { text: HtpasswdUsers; hashes: ReadonlyMap<string, string> }>();
    for (const { id, users } of list ?? []) {
      const known = this.#byId.get(id);
      next.set(id, known !== undefined && known.text === users ? known : { text: users, hashes: parseLines(users.reveal()) });
    }
    this.#byId = next;
  }

  /** user -> hash of one Secret, or undefined when no current build names that id. */
  get(id: string): ReadonlyMap<string, string> | undefined {
    return this.#byId.get(id)?.hashes;
  }
}

/** `user:hash` lines (the translator's output: one entry per user, hashes in a known format). */
function parseLines(text: string): Map<string, string> {
  const users = new Map<string, string>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) users.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return users;
}
