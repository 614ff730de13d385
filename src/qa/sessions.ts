// /mock/sessions: list active sessions, end one or all (their tokens stop being active).
import express from 'express';
import { OAuthError } from '../oauth/errors.js';
import type { Provider } from '../provider.js';

export function sessionRoutes(p: Provider): express.Router {
  const router = express.Router();
  router.get('/', (_req, res) => {
    res.json({ sessions: p.store.sessions() });
  });
  router.delete('/', (_req, res) => {
    res.json({ ended: p.store.endAllSessions('qa') });
  });
  router.delete('/:id', (req, res) => {
    const id = req.params['id'] ?? '';
    if (p.store.activeSession(id) === undefined || !p.store.endSession(id, 'qa'))
      throw new OAuthError('not_found', `No active session "${id}"`, 404);
    res.json({ ended: 1 });
  });
  return router;
}
