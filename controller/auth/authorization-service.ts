// The gRPC service Envoy's ext_authz filter calls for basic auth (envoy.service.auth.v3.Authorization/Check),
// served by the controller on its xDS server (envoy/basic-auth.ts says how Envoy is configured). A check carries
// the route's users id and realm (context extensions) and the request's Authorization header only. Answers: OK
// with the Authorization header removed (ingress-nginx does not pass the credentials on: `proxy_set_header
// Authorization ""`), 401 with `WWW-Authenticate: Basic realm="<realm>"` and nginx's page, 429 when this
// Secret has too many checks pending (one tenant's storm: PasswordWorkerPool), or 503 when the users are not
// known here or too many checks are waiting overall. Slow hashes are verified on worker threads. Nothing of a
// request is logged.
import { BlockList, isIP } from 'node:net';
import type * as grpc from '@grpc/grpc-js';
import type { ClientAuthorizer } from '../../xds/client-identity.js';
import { basicAuthAllowedMetadata, basicAuthContext } from '../../envoy/basic-auth.js';
import { messageType } from '../../proto/envoy-api.js';
import { type BasicAuthDecision, decideBasicAuth } from './basic-auth-decision.js';
import type { BasicAuthUsers } from './basic-auth-users.js';
import { verifyPassword } from './password-hash.js';
import { PasswordWorkerPool, type PoolVerdict } from './password-worker-pool.js';
import { isSlowScheme, passwordScheme } from '../translate/shared/password-scheme.js';
import { VerifiedPasswords } from './verified-passwords.js';

const servicePath = '/envoy.service.auth.v3.Authorization';

/** The parts of a CheckRequest read here (proto field names as in the .proto files). */
interface CheckRequest {
  attributes?: {
    source?: { address?: { socket_address?: { address?: string } } };
    context_extensions?: Record<string, string>;
    request?: { http?: { headers?: Record<string, string> } };
  };
}

let codec: { request: ReturnType<typeof messageType>; response: ReturnType<typeof messageType> } | undefined;

function types(): NonNullable<typeof codec> {
  codec ??= { request: messageType('envoy.service.auth.v3.CheckRequest'), response: messageType('envoy.service.auth.v3.CheckResponse') };
  return codec;
}

export const authorizationServiceDefinition: grpc.ServiceDefinition = {
  Check: {
    path: `${servicePath}/Check`,
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: Buffer) => value,
    requestDeserialize: (bytes: Buffer) => types().request.decode(bytes) as unknown as CheckRequest,
    responseSerialize: (value: Buffer) => value,
    responseDeserialize: (bytes: Buffer) => bytes,
  },
};

/** nginx's 401 page, as ingress-nginx sends it with the challenge. */
export const authorizationRequiredPage = `<html>
<head><title>401 Authorization Required</title></head>
<body>
<center><h1>401 Authorization Required</h1></center>
</body>
</html>
`;

const tooManyRequestsPage = `<html>
<head><title>429 Too Many Requests</title></head>
<body>
<center><h1>429 Too Many Requests</h1></center>
</body>
</html>
`;

const serviceUnavailablePage = `<html>
<head><title>503 Service Temporarily Unavailable</title></head>
<body>
<center><h1>503 Service Temporarily Unavailable</h1></center>
</body>
</html>
`;

/** The BlockList of a comma-separated CIDR list (the translator wrote them; invalid ones match nothing). */
function blockListOf(cidrs: string): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs.split(',')) {
    const [net = '', bits = ''] = cidr.split('/');
    const family = isIP(net) === 6 ? 'ipv6' : 'ipv4';
    if (isIP(net) !== 0) list.addSubnet(net, Number(bits), family);
  }
  return list;
}

/**
 * Lists by their text: every check of a route carries the same text, so it is parsed once, not per request. The
 * texts come from the routes' config, not from clients; the map starts over past a bound all the same.
 */
const blockLists = new Map<string, BlockList>();
const maxBlockLists = 1_000;

/** Whether `address` is in one of the comma-separated CIDRs. */
function inRanges(address: string | undefined, cidrs: string): boolean {
  if (address === undefined || isIP(address) === 0) return false;
  let list = blockLists.get(cidrs);
  if (list === undefined) {
    if (blockLists.size >= maxBlockLists) blockLists.clear();
    list = blockListOf(cidrs);
    blockLists.set(cidrs, list);
  }
  return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** google.rpc.Code values. */
const rpcCode = { ok: 0, unauthenticated: 16, unavailable: 14, resourceExhausted: 8 } as const;

function header(key: string, value: string): object {
  return { header: { key, value } };
}

function encodeDecision(decision: BasicAuthDecision | 'overloaded', realm: string, satisfyAny: boolean): Buffer {
  const { key, value } = basicAuthAllowedMetadata;
  const response =
    decision === 'allow'
      ? {
          status: { code: rpcCode.ok },
          ok_response: { headers_to_remove: ['authorization'] },
          // satisfy: any: the auth-url check is skipped for this request. (protobufjs's built-in Struct types keep
          // their camelCase field names, unlike the Envoy API loaded with keepCase.)
          ...(satisfyAny ? { dynamic_metadata: { fields: { [key]: { stringValue: value } } } } : {}),
        }
      : decision === 'deny' && satisfyAny
        ? // satisfy: any: wrong credentials are left to the auth-url check, which then decides.
          { status: { code: rpcCode.ok }, ok_response: {} }
      : decision === 'deny'
        ? {
            status: { code: rpcCode.unauthenticated },
            denied_response: {
              status: { code: 401 },
              headers: [header('www-authenticate', `Basic realm="${realm}"`), header('content-type', 'text/html')],
              body: authorizationRequiredPage,
            },
          }
      : decision === 'busy'
        ? {
            status: { code: rpcCode.resourceExhausted },
            denied_response: {
              status: { code: 429 },
              headers: [header('content-type', 'text/html'), header('retry-after', '1')],
              body: tooManyRequestsPage,
            },
          }
        : {
            status: { code: rpcCode.unavailable },
            denied_response: { status: { code: 503 }, headers: [header('content-type', 'text/html')], body: serviceUnavailablePage },
          };
  const type = types().response;
  return Buffer.from(type.encode(type.fromObject(response)).finish());
}

export interface BasicAuthServiceOptions {
  /**
   * Who may ask (the xDS server's client check, e.g. the split variant's SAN check): a refusal reason, or
   * undefined to answer. Refused callers get PERMISSION_DENIED, so a password cannot be tried around Envoy.
   */
  authorizeClient?: ClientAuthorizer;
  /** Verifications not answered from the cache that may wait at once; beyond, checks get 503 (default 256). */
  maxPendingVerifications?: number;
  /** Successful verifications remembered (default 10,000). */
  cacheSize?: number;
  /** Instead of the worker pool, for tests: how a password is verified (on the event loop). */
  verify?: (password: string, hash: string) => Promise<boolean>;
  /** Where slow hashes are verified (default: a pool of its own, sized to the machine). */
  pool?: PasswordWorkerPool;
}

export interface BasicAuthServiceStats {
  checks: number;
  allowed: number;
  denied: number;
  unavailable: number;
  /** Refused with 429: the Secret had too many checks pending. */
  busy: number;
  /** Verifications actually run (cache misses). */
  verifications: number;
}

/** The handlers of authorizationServiceDefinition, reading users from `users`. */
export class BasicAuthService {
  readonly stats: BasicAuthServiceStats = { checks: 0, allowed: 0, denied: 0, unavailable: 0, busy: 0, verifications: 0 };
  readonly #verified: VerifiedPasswords;
  readonly #maxPending: number;
  readonly #verify: (password: string, hash: string, tenant: string) => Promise<PoolVerdict>;
  readonly #ownPool: PasswordWorkerPool | undefined;
  readonly #authorize: ClientAuthorizer | undefined;
  #pending = 0;

  constructor(
    private readonly users: BasicAuthUsers,
    options: BasicAuthServiceOptions = {},
  ) {
    this.#verified = new VerifiedPasswords(options.cacheSize ?? 10_000);
    this.#maxPending = options.maxPendingVerifications ?? 256;
    const given = options.verify;
    if (given !== undefined) {
      this.#verify = (password, hash) => given(password, hash);
    } else {
      const pool = options.pool ?? new PasswordWorkerPool();
      if (options.pool === undefined) this.#ownPool = pool;
      // Fast schemes ({SHA}, {SSHA}, {PLAIN}, DES) cost microseconds: a worker round trip would cost more.
      this.#verify = (password, hash, tenant) => {
        const scheme = passwordScheme(hash);
        return scheme !== undefined && isSlowScheme(scheme) ? pool.verify(tenant, password, hash) : verifyPassword(password, hash);
      };
    }
    this.#authorize = options.authorizeClient;
  }

  /** Stops the worker threads of its own pool. */
  async close(): Promise<void> {
    await this.#ownPool?.close();
  }

  /** Registers the service on a gRPC server (before or after it is bound). */
  addTo(server: grpc.Server): void {
    server.addService(authorizationServiceDefinition, {
      Check: (call: grpc.ServerUnaryCall<CheckRequest, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
        const refusal = this.#authorize?.(call.getAuthContext());
        if (refusal !== undefined) {
          callback({ code: 7, details: `not authorized: ${refusal}` });
          return;
        }
        this.check(call.request).then(
          (bytes) => callback(null, bytes),
          // Not reachable in practice (decisions do not throw); Envoy then answers 503 (status_on_error).
          () => callback({ code: 13, details: 'basic auth check failed' }),
        );
      },
    });
  }

  async check(request: CheckRequest): Promise<Buffer> {
    this.stats.checks += 1;
    const context = request.attributes?.context_extensions ?? {};
    const realm = context[basicAuthContext.realm] ?? '';
    const satisfyAny = context[basicAuthContext.satisfyAny] === 'true';
    const id = context[basicAuthContext.usersId];
    const users = id === undefined ? undefined : this.users.get(id);
    const authorization = request.attributes?.request?.http?.headers?.['authorization'];
    // satisfy: any with an allow-list: a listed client needs no credentials (its Authorization still never goes on).
    const allowed = context[basicAuthContext.allowedCidrs];
    if (allowed !== undefined && users !== undefined && inRanges(request.attributes?.source?.address?.socket_address?.address, allowed)) {
      this.stats.allowed += 1;
      return encodeDecision('allow', realm, satisfyAny);
    }
    if (this.#pending >= this.#maxPending) {
      this.stats.unavailable += 1;
      return encodeDecision('overloaded', realm, false);
    }
    this.#pending += 1;
    let decision: BasicAuthDecision;
    try {
      decision = await decideBasicAuth(users, authorization, this.#verified, async (password, hash) => {
        const verdict = await this.#verify(password, hash, id ?? '');
        if (verdict !== 'busy') this.stats.verifications += 1;
        return verdict;
      });
    } finally {
      this.#pending -= 1;
    }
    if (decision === 'allow') this.stats.allowed += 1;
    else if (decision === 'deny') this.stats.denied += 1;
    else if (decision === 'busy') this.stats.busy += 1;
    else this.stats.unavailable += 1;
    return encodeDecision(decision, realm, satisfyAny);
  }
}
