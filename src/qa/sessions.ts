// /mock/sessions: list active sessions, end one or all (their tokens stop being active).
import express from 'express';
import { OAuthError } from '../oauth/errors.js';
import type { Provider } from '../provider.js';

export function sessionRoutes(p: Provider): express.Router {
  const router = express.Router();
  router.get('/', async (_req, res) => {
    res.json({ sessions: await p.store.sessions() });
  });
  router.delete('/', async (_req, res) => {
    res.json({ ended: await p.store.endAllSessions('qa') });
  });
  router.delete('/:id', async (req, res) => {
    const id = req.params['id'] ?? '';
    if ((await p.store.activeSession(id)) === undefined || !(await p.store.endSession(id, 'qa')))
      throw new OAuthError('not_found', `No active session "${id}"`, 404);
    res.json({ ended: 1 });
  });
  return router;
}
