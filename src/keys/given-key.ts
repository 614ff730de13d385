// What the realm's key choice hands the EC key's maker: a given key (with its chain) and where a made one derives from.
import type { Ids } from '../ids.js';
import type { SigningKeyObject } from './load-key.js';

/** What a made EC key and chain derive from: the realm's ids (seeded or random) and the clock at start. */
export interface EcStart {
  ids: Ids;
  now: Date;
}

/** One key of the fixtures' `keys` or of --key, with the chain given beside an EC key. */
export interface GivenKey {
  key: SigningKeyObject;
  source: string;
  x5c?: string[];
}
