// StartedMockIdpContainer: a running mock-idp, its URLs as seen from the test process, and the QA mint call.
import type { StartedTestContainer } from 'testcontainers';
import { AbstractStartedContainer } from './peer.js';
import { MockIdpContainerError } from './errors.js';
import type { MintRequest, MintedToken } from '../qa/mint-request.js';
import { fetchTrusting, type FlowFetch } from '../flows/ca-fetch.js';
import {
  checkTokenRequest,
  runTokenFlow,
  type FlowClient,
  type TokenFlowRequest,
} from '../flows/token-flow.js';
import type { TokenResponse } from '../oauth/token-set.js';
import type { JournalRecord } from '../store/journal.js';
import { realmBasePath } from '../realm/paths.js';

export interface StartedMockIdpOptions {
  /** withTls(): the PEM of the mock CA that signed the server's certificate; the URLs are then https. */
  caCertificate?: string | undefined;
  /** Realm name from the fixtures. */
  realm: string;
  /** The fixed issuer (`withIssuer` or the fixtures' `issuer`), if any. */
  issuer: string | undefined;
  /** The QA token (`withQaToken`), sent by the QA helpers; undefined when the QA API has none. */
  qaToken?: string | undefined;
  /** The HTTP relative path (`withContextPath`), normalised; default: none. */
  contextPath?: string;
  /** The fixtures' clients, for the one-call token flows. */
  clients?: Map<string, FlowClient>;
  /** Realm master's admin user (`withAdminUsername`, `withAdminPassword`). Default: admin/admin. */
  admin?: { username: string; password: string };
}

export class StartedMockIdpContainer extends AbstractStartedContainer {
  private readonly realm: string;
  private readonly fixedIssuer: string | undefined;
  private readonly qaToken: string | undefined;
  private readonly clients: Map<string, FlowClient>;
  private readonly contextPath: string;
  private readonly caCertificate: string | undefined;
  /** What the QA calls and the token flows send with: trusting the mock CA with withTls(). */
  private readonly send: FlowFetch;
  private readonly admin: { username: string; password: string };

  constructor(started: StartedTestContainer, options: StartedMockIdpOptions) {
    super(started);
    this.realm = options.realm;
    this.fixedIssuer = options.issuer;
    this.qaToken = options.qaToken;
    this.clients = options.clients ?? new Map();
    this.contextPath = options.contextPath ?? '';
    this.caCertificate = options.caCertificate;
    this.send =
      this.caCertificate !== undefined ? fetchTrusting(this.caCertificate) : (url, init) => fetch(url, init);
    this.admin = options.admin ?? { username: 'admin', password: 'admin' };
  }

  /**
   * With withTls(): the mock CA's certificate (PEM) to trust, e.g. undici's `new Agent({ connect: { ca } })`,
   * `NODE_EXTRA_CA_CERTS` for a child process, or curl's `--cacert`. Throws without withTls().
   */
  getCaCertificate(): string {
    if (this.caCertificate === undefined)
      throw new MockIdpContainerError(
        'CA_UNREADABLE',
        'getCaCertificate(): this container serves http; start it withTls() for https and a CA',
      );
    return this.caCertificate;
  }

  /**
   * The server's URL from the test process, as testcontainers-keycloak names it: `http://{host}:{mapped
   * port}{context path}`, where `/admin` and `/realms/{realm}` are (the admin client's `baseUrl`).
   */
  getAuthServerUrl(): string {
    const host = this.getHost();
    const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
    const scheme = this.caCertificate !== undefined ? 'https' : 'http';
    return `${scheme}://${hostPart}:${this.getFirstMappedPort()}${this.contextPath}`;
  }

  /** Realm master's admin user (password grant with client `admin-cli`). */
  getAdminUsername(): string {
    return this.admin.username;
  }

  getAdminPassword(): string {
    return this.admin.password;
  }

  /**
   * A real token response from a real flow: client_credentials, or with `user` the code flow
   * (login_hint, PKCE). The client's secret comes from the fixtures file (or `secret`).
   */
  async getTokenResponse(request: TokenFlowRequest): Promise<TokenResponse> {
    checkTokenRequest('getTokenResponse', request);
    const client = this.clients.get(request.client) ?? {
      id: request.client,
      authMethods: ['client_secret_basic', 'client_secret_post', 'none'],
      redirectUris: [],
    };
    return runTokenFlow(this.getBaseUrl(), client, request, {
      send: this.send,
      // A DPoP proof's iat on the server's clock (withClock may have set it years away from ours).
      nowSeconds: async () =>
        (await this.qaGet('clock', (body) => typeof body['epoch'] === 'number'))['epoch'] as number,
    });
  }

  /** The access token of {@link getTokenResponse}. */
  async getAccessToken(request: TokenFlowRequest): Promise<string> {
    return (await this.getTokenResponse(request)).access_token;
  }

  /** The request journal (GET /mock/requests), newest last. */
  async requests(filter: Record<string, string | number> = {}): Promise<JournalRecord[]> {
    const query = new URLSearchParams(
      Object.entries(filter).map(([k, v]): [string, string] => [k, String(v)]),
    );
    const path = `requests${query.size > 0 ? `?${query}` : ''}`;
    return (await this.qaGet(path, (body) => Array.isArray(body['requests'])))['requests'] as JournalRecord[];
  }

  /** GET /mock/{path} (with the QA token): its JSON object, which `shaped` accepts. */
  private async qaGet(
    path: string,
    shaped: (body: Record<string, unknown>) => boolean,
  ): Promise<Record<string, unknown>> {
    const url = `${this.getBaseUrl()}/mock/${path}`;
    const response = await this.send(url, {
      headers: this.qaToken !== undefined ? { authorization: `Bearer ${this.qaToken}` } : {},
    });
    const text = await response.text();
    const body = parseJson(text);
    if (!response.ok || !isRecord(body) || !shaped(body))
      throw new MockIdpContainerError('QA_FAILED', `GET ${url} answered ${response.status}: ${text}`, {
        status: response.status,
      });
    return body;
  }

  getRealm(): string {
    return this.realm;
  }

  /**
   * The realm base URL reachable from the test process: `http://{host}:{mapped port}{context path}/realms/{realm}`
   * (https with withTls()).
   */
  getBaseUrl(): string {
    return `${this.getAuthServerUrl()}${realmBasePath(encodeURIComponent(this.realm), '')}`;
  }

  /** The `iss` of every token: the fixed issuer, else the base URL (derived from the Host of the request). */
  getIssuer(): string {
    return this.fixedIssuer ?? this.getBaseUrl();
  }

  getDiscoveryUrl(): string {
    return `${this.getBaseUrl()}/.well-known/openid-configuration`;
  }

  getTokenEndpoint(): string {
    return `${this.getBaseUrl()}/protocol/openid-connect/token`;
  }

  getIntrospectionEndpoint(): string {
    return `${this.getBaseUrl()}/protocol/openid-connect/token/introspect`;
  }

  getJwksUri(): string {
    return `${this.getBaseUrl()}/protocol/openid-connect/certs`;
  }

  /** Mint one token over the QA API; throws {@link MockIdpContainerError} `MINT_FAILED` on a non-2xx answer. */
  async mint(request: MintRequest): Promise<MintedToken> {
    const url = `${this.getBaseUrl()}/mock/tokens`;
    const response = await this.send(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(this.qaToken !== undefined ? { authorization: `Bearer ${this.qaToken}` } : {}),
      },
      body: JSON.stringify(request),
    });
    const text = await response.text();
    const status = response.status;
    if (!response.ok) {
      throw new MockIdpContainerError('MINT_FAILED', `mint failed: POST ${url} answered ${status}: ${text}`, {
        status,
      });
    }
    const minted = parseJson(text);
    if (
      !isRecord(minted) ||
      typeof minted.token !== 'string' ||
      !isRecord(minted.header) ||
      typeof minted.header['alg'] !== 'string' ||
      !isRecord(minted.claims)
    ) {
      throw new MockIdpContainerError('MINT_FAILED', `mint failed: POST ${url} answered no token: ${text}`, {
        status,
      });
    }
    return {
      token: minted.token,
      header: minted.header as MintedToken['header'],
      claims: minted.claims as MintedToken['claims'],
    };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
