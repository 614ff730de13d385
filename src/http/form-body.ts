// The urlencoded body of the form endpoints (token, introspection, revocation, authorize, userinfo, logout):
// express's own reader. Not extended: keys stay flat (`a[b]` is a key) and a repeated key reads as an array,
// which the endpoints refuse as a repeated parameter; past the limits it answers 413 as express does.
import express from 'express';

/** The largest form body the endpoints read, in bytes. */
export const FORM_LIMIT = 64 * 1024;
/** The most `&`-separated parameters a form body may have. */
const FORM_PARAMETERS = 100;

export const formBody = express.urlencoded({
  extended: false,
  limit: FORM_LIMIT,
  parameterLimit: FORM_PARAMETERS,
});
