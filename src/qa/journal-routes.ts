// /mock/requests: read (filtered) or clear the request journal.
import express from 'express';
import { ENDPOINT_NAMES } from '../endpoint-names.js';
import type { Provider } from '../realm/provider.js';
import { parseJournalFilter } from './journal.js';

export function journalRoutes(p: Provider): express.Router {
  const router = express.Router();
  // The store's journal: with a shared store, every replica's requests. `held`: how many records it holds
  // (a page that shows the newest few, `?limit=`, still tells how many there are).
  router.get('/', async (req, res) => {
    const filter = parseJournalFilter(req.query, ENDPOINT_NAMES);
    const [requests, held] = await Promise.all([p.store.journal.list(filter), p.store.journal.size()]);
    res.set('Cache-Control', 'no-store').json({ requests, held });
  });
  router.delete('/', async (_req, res) => {
    const cleared = await p.store.journal.clear();
    if (p.journal !== p.store.journal) p.journal.clear();
    res.json({ cleared });
  });
  return router;
}
