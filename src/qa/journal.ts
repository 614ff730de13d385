// The request journal as the QA API and the request log read it: the filters of GET /mock/requests, and a
// record's log line. The records and where they are kept live in store/journal.ts.
import { parseInstant } from '../clock.js';
import { invalidRequest } from '../oauth/errors.js';
import { didYouMean } from '../suggest.js';
import { JOURNAL_CAPACITY, type JournalFilter, type JournalRecord } from '../store/journal.js';

const FILTERS = ['endpoint', 'client', 'status', 'since', 'limit'] as const;

/**
 * Reads `?endpoint=&client=&status=&since=&limit=`; a bad or unknown filter is `invalid_request` naming
 * it.
 */
export function parseJournalFilter(
  query: Record<string, unknown>,
  endpoints: readonly string[],
): JournalFilter {
  const filter: JournalFilter = {};
  for (const [name, raw] of Object.entries(query)) {
    if (!(FILTERS as readonly string[]).includes(name))
      throw invalidRequest(
        `Unknown filter "${name}"${didYouMean(name, FILTERS)} (filters: ${FILTERS.join(', ')})`,
      );
    if (typeof raw !== 'string') throw invalidRequest(`Invalid filter ${name}: give it once`);
    if (name === 'endpoint') {
      if (!endpoints.includes(raw))
        throw invalidRequest(`Invalid filter endpoint "${raw}" (endpoints: ${endpoints.join(', ')})`);
      filter.endpoint = raw;
    } else if (name === 'client') {
      filter.client = raw;
    } else if (name === 'status') {
      const klass = /^([1-5])xx$/i.exec(raw);
      if (klass?.[1] !== undefined) filter.status = { klass: Number(klass[1]) };
      else if (/^[1-5]\d\d$/.test(raw)) filter.status = { exact: Number(raw) };
      else
        throw invalidRequest(`Invalid filter status "${raw}" (a status such as 400, or a class such as 4xx)`);
    } else if (name === 'limit') {
      if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > JOURNAL_CAPACITY)
        throw invalidRequest(
          `Invalid filter limit "${raw.slice(0, 40)}" (an integer from 1 to ${JOURNAL_CAPACITY})`,
        );
      filter.limit = Number(raw);
    } else {
      try {
        filter.sinceMs = parseInstant(raw);
      } catch {
        throw invalidRequest(`Invalid filter since "${raw}" (an ISO-8601 instant or epoch seconds)`);
      }
    }
  }
  return filter;
}

/** The request log's line for a record: `METHOD PATH STATUS [client=] [grant=] [user=] [error=] N.Nms`. */
export function logLine(r: JournalRecord): string {
  const parts = [r.method, r.path, String(r.status)];
  if (r.client !== null) parts.push(`client=${r.client}`);
  if (r.grant !== null) parts.push(`grant=${r.grant}`);
  if (r.user !== null) parts.push(`user=${r.user}`);
  if (r.error !== null) parts.push(`error=${r.error}`);
  parts.push(`${r.durationMs.toFixed(1)}ms`);
  return parts.join(' ');
}
