// The YAML of generated users, written directly: a general YAML serializer takes ~300 µs a user (30 s
// for 100,000). Every value here is a string of known characters, a number or a boolean; strings that
// could read as anything but text are single-quoted. test/users tests that the yaml package parses it back.
import type { SyntheticUser } from './generate.js';

/** Plain scalars only for words, spaces, dots and hyphens; YAML 1.1 and 1.2 keywords are quoted. */
const PLAIN = /^[A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ0-9 .-]*[A-Za-zÀ-ÖØ-öø-ÿ0-9]$/;
const KEYWORD = /^(?:true|false|null|yes|no|on|off|y|n|nan|inf)$/i;

function yamlString(value: string): string {
  if (PLAIN.test(value) && !KEYWORD.test(value)) return value;
  return `'${value.includes("'") ? value.replaceAll("'", "''") : value}'`;
}

/** yamlString, remembered: names, banks and constants repeat across users. */
const seen = new Map<string, string>();
function cached(value: string): string {
  let yaml = seen.get(value);
  if (yaml === undefined) {
    yaml = yamlString(value);
    if (seen.size < 10_000) seen.set(value, yaml);
  }
  return yaml;
}

/** Always quoted (a distinguished name has `=` and an escaped comma). */
const quoted = (value: string): string => `'${value.includes("'") ? value.replaceAll("'", "''") : value}'`;

/** Digits and hyphens (ids, dates, serials): always quoted, so they stay strings; nothing to escape. */
const digits = (value: string): string => `'${value}'`;

/** One user as an entry of a `users:` map (indented two spaces), ending with a newline. */
export function userYaml(user: SyntheticUser, brand = 'idp', methods?: readonly string[]): string {
  const c = user.claims;
  const cert = c.additionalCertInfo;
  const s = cached;
  // A name of two plain words is plain; usernames are lower-case letters, digits and dots.
  const name =
    s(c.given_name) === c.given_name && s(c.family_name) === c.family_name ? c.name : yamlString(c.name);
  return `  ${yamlString(user.username)}:
    acr: ${brand === 'idp' ? s(user.acr) : s(user.acr.replace('urn:idp:', `urn:${brand}:`))}
    amr: ${s(user.amr)}
    claims:
      name: ${name}
      given_name: ${s(c.given_name)}
      family_name: ${s(c.family_name)}
      birthdate: ${digits(c.birthdate)}
      updated_at: ${c.updated_at}
      ${brand}_altsub: ${digits(c.idp_altsub)}
      nnin_altsub: ${digits(c.nnin_altsub)}
      tid: ${s(c.tid)}
      originator: ${s(c.originator)}
      additionalCertInfo:
        certValidFrom: ${cert.certValidFrom}
        certValidTo: ${cert.certValidTo}
        serialNumber: ${digits(cert.serialNumber)}
        keyAlgorithm: ${s(cert.keyAlgorithm)}
        keySize: ${s(cert.keySize)}
        policyOid: ${s(cert.policyOid)}
        monetaryLimitAmount: ${s(cert.monetaryLimitAmount)}
        monetaryLimitCurrency: ${s(cert.monetaryLimitCurrency)}
        certQualified: ${cert.certQualified}
        versionNumber: ${s(cert.versionNumber)}
        subjectName: ${quoted(cert.subjectName)}
    realmRoles: [${user.realmRoles.map(s).join(', ')}]
${methods !== undefined ? `    methods: [${methods.join(', ')}]\n` : ''}`;
}
