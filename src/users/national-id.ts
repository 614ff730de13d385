// Norwegian national identity numbers (fødselsnummer) of synthetic test persons: DDMMYY, a three-digit
// individual number, two mod-11 check digits; the month + 80 marks the number as synthetic, so it can
// never be a real person's.
const WEIGHTS_1 = [3, 7, 6, 1, 8, 9, 4, 5, 2] as const;
const WEIGHTS_2 = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2] as const;
/** Added to the month of a synthetic person's number (Skatteetaten's test persons). */
const SYNTHETIC_MONTH_OFFSET = 80;

/** The check digit over `digits` with `weights`, or undefined where the remainder leaves 10 (no number). */
function checkDigit(digits: readonly number[], weights: readonly number[]): number | undefined {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += (digits[i] ?? 0) * (weights[i] ?? 0);
  const k = 11 - (sum % 11);
  return k === 11 ? 0 : k === 10 ? undefined : k;
}

/**
 * The individual numbers a birth year may have (inclusive ranges): 000–499 for 1900–1999, 500–749 for
 * 1854–1899, 500–999 for 2000–2039, and 900–999 for 1940–1999 too.
 */
export function individualRanges(year: number): [number, number][] {
  if (year >= 1854 && year <= 1899) return [[500, 749]];
  if (year >= 1900 && year <= 1939) return [[0, 499]];
  if (year >= 1940 && year <= 1999)
    return [
      [0, 499],
      [900, 999],
    ];
  if (year >= 2000 && year <= 2039) return [[500, 999]];
  throw new RangeError(`no national identity numbers for the birth year ${year}`);
}

/** Odd individual numbers are men's, even women's. */
export function genderOf(individual: number): 'male' | 'female' {
  return individual % 2 === 1 ? 'male' : 'female';
}

/**
 * The synthetic national id of a person born on the given date with the given individual number, or
 * undefined when no check digit fits (about 2 in 11 individual numbers: draw another).
 */
export function syntheticNationalId(
  year: number,
  month: number,
  day: number,
  individual: number,
): string | undefined {
  const mm = month + SYNTHETIC_MONTH_OFFSET;
  const yy = year % 100;
  const d = [
    Math.floor(day / 10),
    day % 10,
    Math.floor(mm / 10),
    mm % 10,
    Math.floor(yy / 10),
    yy % 10,
    Math.floor(individual / 100),
    Math.floor(individual / 10) % 10,
    individual % 10,
  ];
  const k1 = checkDigit(d, WEIGHTS_1);
  if (k1 === undefined) return undefined;
  d.push(k1);
  const k2 = checkDigit(d, WEIGHTS_2);
  if (k2 === undefined) return undefined;
  // Arithmetic, not digits.join(''): this runs for every generated user.
  const number = ((day * 100 + mm) * 100 + yy) * 100_000 + individual * 100 + k1 * 10 + k2;
  return String(number).padStart(11, '0');
}
