// OIDC Back-Channel Logout 1.0: when a user's session ends, POST a signed logout_token to every client of
// the session that registered a backchannelLogoutUri. Fire and forget: retries are bounded, failures
// logged, and nothing waits for them (a client that hangs or fails never delays the logout answer).
import type { Logger } from '../log.js';
import type { RealmContext } from '../realm/context.js';
import { signFor } from '../tokens/sign.js';
import type { Session } from '../store/state-store.js';

const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

interface BackchannelOptions {
  /** Attempts per client. Default: 3. */
  attempts?: number;
  /** Time one attempt may take, ms. Default: 5000. */
  timeoutMs?: number;
  /** Wait before the second attempt, doubled for each further one, ms. Default: 500. */
  backoffMs?: number;
}

/** The logout_token of OIDC Back-Channel Logout 1.0 §2.4 for one client of a session. */
async function logoutToken(p: RealmContext, session: Session, clientId: string): Promise<string> {
  const now = p.clock.nowSeconds();
  const client = p.realm.clients.get(clientId);
  // The sub this client knows the user by (pairwise for a pairwise client).
  const sub =
    client !== undefined
      ? p.subjectIds.subFor(client, session.sub, session.username === undefined)
      : session.sub;
  // A session may hold sign-ins of several versions; the logout token goes to one client, signed as that
  // client's configured version signs (ES256 from version 3).
  const version = client !== undefined ? (client.apiVersion ?? p.realm.apiVersion) : p.realm.apiVersion;
  return signFor(p.keys, version)(
    {
      iss: session.issuer,
      aud: clientId,
      iat: now,
      exp: now + 120,
      jti: p.ids.uuid('jti'),
      sub,
      sid: session.id,
      typ: 'Logout',
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    },
    { typ: 'logout+jwt' },
  );
}

export class BackchannelLogout {
  readonly #p: RealmContext;
  readonly #log: Logger;
  readonly #attempts: number;
  readonly #timeoutMs: number;
  readonly #backoffMs: number;
  readonly #stop = new AbortController();

  constructor(p: RealmContext, log: Logger, options: BackchannelOptions = {}) {
    this.#p = p;
    this.#log = log;
    this.#attempts = options.attempts ?? 3;
    this.#timeoutMs = options.timeoutMs ?? 5000;
    this.#backoffMs = options.backoffMs ?? 500;
  }

  /** Starts the deliveries for a session that ended; returns at once. */
  notify(session: Session): void {
    if (session.username === undefined || this.#stop.signal.aborted) return;
    for (const clientId of session.clients) {
      const uri = this.#p.realm.clients.get(clientId)?.backchannelLogoutUri;
      if (uri === undefined) continue;
      this.#deliver(session, clientId, uri).catch((err: unknown) => {
        this.#log.warn(`back-channel logout to client ${clientId}: ${(err as Error).message}`);
      });
    }
  }

  /** Abandons every delivery (server close). */
  close(): void {
    this.#stop.abort();
  }

  async #deliver(session: Session, clientId: string, uri: string): Promise<void> {
    const body = new URLSearchParams({ logout_token: await logoutToken(this.#p, session, clientId) });
    let last = '';
    for (let attempt = 1; attempt <= this.#attempts; attempt++) {
      if (attempt > 1) await this.#wait(this.#backoffMs * 2 ** (attempt - 2));
      if (this.#stop.signal.aborted) return;
      try {
        const answer = await fetch(uri, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body,
          redirect: 'manual',
          signal: AbortSignal.any([this.#stop.signal, AbortSignal.timeout(this.#timeoutMs)]),
        });
        await answer.body?.cancel();
        if (answer.ok) return;
        last = `HTTP ${answer.status}`;
      } catch (err) {
        if (this.#stop.signal.aborted) return;
        const e = err as Error & { cause?: { message?: string } };
        last =
          e.name === 'TimeoutError'
            ? `no answer within ${this.#timeoutMs} ms`
            : (e.cause?.message ?? e.message);
      }
    }
    throw new Error(`failed after ${this.#attempts} attempts (last: ${last})`);
  }

  #wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#stop.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
