// /mock/requests: read (filtered) or clear the request journal.
import express from 'express';
import { ENDPOINT_NAMES } from '../http/paths.js';
import type { Provider } from '../provider.js';
import { parseJournalFilter } from './journal.js';

export function journalRoutes(p: Provider): express.Router {
  const router = express.Router();
  router.get('/', (req, res) => {
    const filter = parseJournalFilter(req.query, ENDPOINT_NAMES);
    res.set('Cache-Control', 'no-store').json({ requests: p.journal.list(filter) });
  });
  router.delete('/', (_req, res) => {
    res.json({ cleared: p.journal.clear() });
  });
  return router;
}
