// A realm's URL paths: its base under the server's origin, and every endpoint's path under that base.

/**
 * Where a realm is served, under the server's origin: `{relativePath}/realms/{name}` (the name as the URL
 * carries it; the relative path normalised, `''` for none).
 */
export function realmBasePath(name: string, relativePath = ''): string {
  return `${relativePath}/realms/${name}`;
}

/** One path segment as a URL carries it unencoded (RFC 3986 pchar), and not `.` or `..`. */
const SEGMENT = /^(?!\.{1,2}$)[A-Za-z0-9._~!$&'()*+,;=:@-]+$/;

/**
 * The HTTP relative path everything is served under (as Keycloak's `--http-relative-path`): a leading
 * slash, no trailing one, `''` for none (`/` or empty). Throws for a value no URL path can be.
 */
export function normaliseRelativePath(value: string): string {
  const trimmed = value.trim().replace(/^\/+/, '').replace(/\/+$/, '');
  if (trimmed === '') return '';
  const bad = trimmed.split('/').find((segment) => !SEGMENT.test(segment));
  if (bad !== undefined)
    throw new Error(
      `"${value}" is not a URL path: ${bad === '' ? 'an empty segment (//)' : `segment "${bad}"`}; give one like /auth`,
    );
  return `/${trimmed}`;
}

export const PATHS = {
  discovery: '/.well-known/openid-configuration',
  token: '/protocol/openid-connect/token',
  introspect: '/protocol/openid-connect/token/introspect',
  certs: '/protocol/openid-connect/certs',
  auth: '/protocol/openid-connect/auth',
  userinfo: '/protocol/openid-connect/userinfo',
  logout: '/protocol/openid-connect/logout',
  revoke: '/protocol/openid-connect/revoke',
  par: '/protocol/openid-connect/ext/par/request',
  deviceAuthorization: '/protocol/openid-connect/auth/device',
  device: '/device',
  ciba: '/protocol/openid-connect/ext/ciba/auth',
  checkSession: '/protocol/openid-connect/login-status-iframe.html',
  checkSessionInit: '/protocol/openid-connect/login-status-iframe.html/init',
  checkSessionStatus: '/protocol/openid-connect/login-status-iframe.html/status',
  thirdPartyCookiesStep1: '/protocol/openid-connect/3p-cookies/step1.html',
  thirdPartyCookiesStep2: '/protocol/openid-connect/3p-cookies/step2.html',
  registration: '/clients-registrations/openid-connect',
} as const;
