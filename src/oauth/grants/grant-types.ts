// The grant types mock-idp supports, in the order discovery lists them: the names a fixtures client lists in
// `grants`. Apart from the grant modules so the fixtures schema can read them without loading the modules
// (which read the realm model the schema makes).
export const GRANT_TYPES = [
  'authorization_code',
  'implicit',
  'refresh_token',
  'password',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:token-exchange',
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
  'urn:ietf:params:oauth:grant-type:device_code',
  'urn:openid:params:grant-type:ciba',
] as const;

export const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';
export const CIBA = 'urn:openid:params:grant-type:ciba';

export type GrantType = (typeof GRANT_TYPES)[number];
