// Synthetic test identities: a national id that passes both check
// digits and is marked synthetic, a birth date, gender and names consistent with it, the provider's
// altsub, and certificate details like a real e-ID's. The same seed gives the same users, and the first
// N users of a seed are the same whatever the count.
import { asciiName, FAMILY_NAMES, givenNames } from './names.js';
import { genderOf, individualRanges, syntheticNationalId } from './national-id.js';
import { permuteSixDigits, SeededRandom } from './random.js';

/** At most this many users: the altsub and serial numbers have six free digits. */
export const MAX_USERS = 1_000_000;
const POLICY_OID = '2.16.578.1.16.1.12.1.1';
const DAY_MS = 86_400_000;
/** Birth dates from 1940 to 2005: adults, all with an individual number of the 1900s or 2000s. */
const FIRST_BIRTH_DAY = Date.UTC(1940, 0, 1) / DAY_MS;
const LAST_BIRTH_DAY = Date.UTC(2005, 11, 31) / DAY_MS;
/** Certificates issued in 2024 and 2025 (fixed, not today: same seed, same output), valid two years. */
const FIRST_CERT_S = Date.UTC(2024, 0, 1) / 1000;
const LAST_CERT_S = Date.UTC(2026, 0, 1) / 1000 - 1;

/** Test banks issuing the e-IDs: organization numbers with a valid mod-11 check digit. */
const BANKS = [
  { name: 'TestBank1', orgNumber: '987654325', originatorId: 9980 },
  { name: 'TestBank2', orgNumber: '998877660', originatorId: 9981 },
  { name: 'TestBank3', orgNumber: '975312461', originatorId: 9982 },
  { name: 'TestBank4', orgNumber: '963852746', originatorId: 9983 },
].map((bank) => ({
  ...bank,
  originator: `CN=IdP - ${bank.name} - Bank CA 3,OU=${bank.orgNumber},O=${bank.name} AS,C=NO;OriginatorId=${bank.originatorId};OriginatorName=BINAS`,
}));

interface CertInfo {
  certValidFrom: number;
  certValidTo: number;
  serialNumber: string;
  keyAlgorithm: 'RSA';
  keySize: '2048';
  policyOid: typeof POLICY_OID;
  monetaryLimitAmount: '0';
  monetaryLimitCurrency: 'NOK';
  certQualified: boolean;
  versionNumber: '3';
  subjectName: string;
}

export interface SyntheticUser {
  username: string;
  acr: 'urn:idp:bid;LOA=4' | 'urn:idp:bid;LOA=3';
  amr: 'BID' | 'BIM';
  claims: {
    name: string;
    given_name: string;
    family_name: string;
    birthdate: string;
    updated_at: number;
    idp_altsub: string;
    nnin_altsub: string;
    tid: 'idp';
    originator: string;
    additionalCertInfo: CertInfo;
  };
  realmRoles: readonly ['user'];
}

/** An individual number uniformly from the ranges a birth year allows. */
function pickIndividual(random: SeededRandom, ranges: readonly [number, number][]): number {
  let r = random.below(ranges.reduce((sum, [lo, hi]) => sum + hi - lo + 1, 0));
  for (const [lo, hi] of ranges) {
    if (r <= hi - lo) return lo + r;
    r -= hi - lo + 1;
  }
  throw new RangeError('no individual number');
}

/** Zero-padded numbers from tables: String(n).padStart() was a tenth of the run time. */
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
const two = (n: number): string => THREE[n]?.slice(1) ?? String(n);
const six = (n: number): string => `${THREE[Math.floor(n / 1000)]}${THREE[n % 1000]}`;
const four = (n: number): string => (n < 10_000 ? `${two(Math.floor(n / 100))}${two(n % 100)}` : String(n));

/** `count` users (1 to MAX_USERS); without a seed, different ones on every call. */
export function* syntheticUsers(count: number, seed?: string): Generator<SyntheticUser> {
  if (!Number.isInteger(count) || count < 1 || count > MAX_USERS)
    throw new RangeError(`a count of users is a whole number from 1 to ${MAX_USERS}`);
  const random = new SeededRandom(seed, 'users');
  const altsubKeys = [random.uint32(), random.uint32(), random.uint32(), random.uint32()];
  const serialKeys = [random.uint32(), random.uint32(), random.uint32(), random.uint32()];
  /** Birth day × 1000 + individual number of every user so far: one national id each. */
  const taken = new Set<number>();
  for (let i = 0; i < count; i++) {
    const birthDay = random.between(FIRST_BIRTH_DAY, LAST_BIRTH_DAY);
    const birth = new Date(birthDay * DAY_MS);
    const [year, month, day] = [birth.getUTCFullYear(), birth.getUTCMonth() + 1, birth.getUTCDate()];
    const ranges = individualRanges(year);
    let individual: number;
    let nationalId: string | undefined;
    do {
      individual = pickIndividual(random, ranges);
      nationalId = syntheticNationalId(year, month, day, individual);
    } while (nationalId === undefined || taken.has(birthDay * 1000 + individual));
    taken.add(birthDay * 1000 + individual);

    const givenName = random.pick(givenNames(genderOf(individual), year));
    const familyName = random.pick(FAMILY_NAMES);
    const qualified = random.below(4) !== 0;
    const bank = random.pick(BANKS);
    const from = random.between(FIRST_CERT_S, LAST_CERT_S) * 1000;
    const f = new Date(from);
    const to = Date.UTC(
      f.getUTCFullYear() + 2,
      f.getUTCMonth(),
      f.getUTCDate(),
      f.getUTCHours(),
      f.getUTCMinutes(),
      f.getUTCSeconds(),
    );
    const serialNumber = `${random.between(1, 9)}${six(permuteSixDigits(i, serialKeys))}`;
    yield {
      username: `${asciiName(givenName)}.${asciiName(familyName)}.${four(i + 1)}`,
      acr: qualified ? 'urn:idp:bid;LOA=4' : 'urn:idp:bid;LOA=3',
      amr: qualified ? 'BID' : 'BIM',
      claims: {
        name: `${givenName} ${familyName}`,
        given_name: givenName,
        family_name: familyName,
        birthdate: `${year}-${two(month)}-${two(day)}`,
        updated_at: from,
        idp_altsub: `9578-6000-4-${six(permuteSixDigits(i, altsubKeys))}`,
        nnin_altsub: nationalId,
        tid: 'idp',
        originator: bank.originator,
        additionalCertInfo: {
          certValidFrom: from,
          certValidTo: to,
          serialNumber,
          keyAlgorithm: 'RSA',
          keySize: '2048',
          policyOid: POLICY_OID,
          monetaryLimitAmount: '0',
          monetaryLimitCurrency: 'NOK',
          certQualified: qualified,
          versionNumber: '3',
          subjectName: `CN=${familyName}\\, ${givenName},O=${bank.name} AS,C=NO`,
        },
      },
      realmRoles: ['user'],
    };
  }
}
