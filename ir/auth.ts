// Authentication of requests: basic auth (checked by the controller) and external authorization services.
import type { CidrIR } from './cidr.js';
import { SecretText } from './secret-text.js';
import type { SourceRef } from './source.js';

/** htpasswd text (`user:hash` lines; SecretText: password hashes are credentials too, it never prints itself). */
export class HtpasswdUsers extends SecretText {
  /** Makes the type nominal: HtpasswdUsers is not interchangeable with other secret text. */
  declare private readonly secretKind: 'htpasswd-users';
}

/**
 * HTTP basic authentication (ingress-nginx auth-type basic); the users come from a Secret. Envoy asks the controller
 * (ext_authz over gRPC) with `usersId`; the users themselves stay in the controller (DataPlaneIR.basicAuthUsers).
 */
export interface BasicAuthIR {
  /** Which entry of DataPlaneIR.basicAuthUsers holds the users: `namespace/name/secretType` of their Secret. */
  usersId: string;
  /** The realm of the 401's `WWW-Authenticate: Basic realm="..."` challenge (auth-realm; empty by default, as nginx). */
  realm: string;
  /** The Secret the users come from, so a problem can be reported on it. */
  secret: SourceRef<'Secret'>;
  /**
   * ingress-nginx `satisfy: any` with auth-url on the same route: right credentials skip the auth-url check, wrong
   * ones are left to it (instead of a 401).
   */
  satisfyAny?: boolean;
  /**
   * ingress-nginx `satisfy: any` with an allow-list: clients in these ranges need no credentials, others need them
   * (the route then has no allowedSourceCidrs of its own).
   */
  allowedWithoutCredentials?: CidrIR[];
}

/** The users of one basic-auth Secret (`user:hash` lines of any scheme ingress-nginx accepts), by BasicAuthIR.usersId. */
export interface BasicAuthUsersIR {
  id: string;
  users: HtpasswdUsers;
}

/**
 * An HTTP authorization service (ingress-nginx auth-url). A 200 answer lets the request through (with the
 * `responseHeaders` of that answer copied onto it); any other answer is sent to the client instead.
 */
export interface ExternalAuthIR {
  /** Name of the HTTP filter that calls this service; equal settings give equal names. */
  filter: string;
  /** The URL as configured (shown in Envoy's config; the cluster decides where requests go). */
  uri: string;
  /** Cluster of `clusters` the check requests go to. */
  cluster: string;
  /** Put before the request's own path in the check request (Envoy always appends the path). */
  pathPrefix: string;
  /** Lower-case names of headers copied from the service's 200 answer onto the request sent upstream. */
  responseHeaders: string[];
  /**
   * auth-signin: a 401 of the authentication becomes a 302 to this URL, whose nginx variables ($host,
   * $escaped_request_uri...) are filled in per request; the `rd=` parameter is already in it (envoy/auth-signin.ts).
   */
  signin?: string;
}
