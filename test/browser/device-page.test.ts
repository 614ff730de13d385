// The device flow's page at {realm}/device in headless Chromium, on a phone and a desktop viewport: the code
// box (filled from verification_uri_complete), the login page of the device's client, the "done" page, and
// cancel, which the polling device hears as access_denied. Set MOCK_IDP_SCREENSHOTS=DIR to keep screenshots.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { CIBA, DEVICE_CODE, grantsFixtures } from '../helpers/grants.js';
import { basic, postForm } from '../helpers/http.js';
import { verifyToken } from '../helpers/jwt.js';
import { useIdp, Y2030 } from '../helpers/server.js';
import { skipBrowser, useChromium, userButton } from './harness.js';

const SHOTS = process.env['MOCK_IDP_SCREENSHOTS'];
if (SHOTS !== undefined) mkdirSync(SHOTS, { recursive: true });

/** How wide the page's content is, in CSS pixels (wider than the viewport: sideways scrolling). */
const pageWidth = (page: Page): Promise<number> =>
  page.evaluate<number>('document.documentElement.scrollWidth');

const VIEWPORTS = [
  ['phone', { width: 390, height: 844 }],
  ['desktop', { width: 1280, height: 900 }],
] as const;

describe.skipIf(skipBrowser)('the device page', () => {
  const browser = useChromium();
  const idp = useIdp(() => ({
    fixtures: grantsFixtures({
      'tv-box': {
        name: 'Fjord TV',
        authMethods: ['none'],
        grants: [DEVICE_CODE],
        scopes: ['openid', 'profile'],
      },
      'branch-desk': { secret: 'desk-pass', grants: [CIBA], scopes: ['openid'] },
    }),
    clock: Y2030,
    frozen: true,
  }));
  let page: Page;

  async function startDevice(): Promise<{
    device_code: string;
    user_code: string;
    verification_uri_complete: string;
  }> {
    const { json } = await postForm(`${idp.issuer}/protocol/openid-connect/auth/device`, {
      client_id: 'tv-box',
      scope: 'openid profile',
    });
    return json as { device_code: string; user_code: string; verification_uri_complete: string };
  }
  const poll = (deviceCode: string) =>
    postForm(idp.endpoints.token, { grant_type: DEVICE_CODE, device_code: deviceCode, client_id: 'tv-box' });
  const shot = async (name: string): Promise<void> => {
    if (SHOTS !== undefined) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };

  beforeEach(async () => {
    await page?.close();
  });

  it.each(VIEWPORTS)(
    'on a %s: code from the link, login page, approve, done; the device gets tokens',
    async (name, viewport) => {
      page = await browser.newPage({ viewport });
      const device = await startDevice();
      await page.goto(device.verification_uri_complete);
      const box = page.locator('input#user_code');
      expect(await box.inputValue()).toBe(device.user_code);
      // Nothing is wider than the screen: no sideways scrolling on a phone.
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      await shot(`device-code-${name}`);
      await page.getByRole('button', { name: 'Continue' }).click();
      await userButton(page, 'ingrid').waitFor();
      expect(await page.locator('h1').textContent()).toContain('Fjord TV');
      expect(await page.locator('.lead').textContent()).toContain(device.user_code);
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      await shot(`device-login-${name}`);
      expect((await poll(device.device_code)).json['error']).toBe('authorization_pending');
      await userButton(page, 'ingrid').click();
      await page.locator('#device-done').waitFor();
      expect(await page.locator('h1').textContent()).toBe('Done — you may return to your device');
      await shot(`device-done-${name}`);
      const tokens = await poll(device.device_code);
      expect(tokens.status, tokens.text).toBe(200);
      expect((await verifyToken(idp, tokens.json['access_token'] as string)).claims).toMatchObject({
        azp: 'tv-box',
        name: 'Ingrid Fjeld',
      });
    },
  );

  it('a code typed by hand (lower case, no dash); cancel on the login page: the device hears access_denied', async () => {
    page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const device = await startDevice();
    await page.goto(`${idp.issuer}/device`);
    await page.locator('input#user_code').fill(device.user_code.toLowerCase().replace('-', ''));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('#device-denied').waitFor();
    expect((await poll(device.device_code)).json).toEqual({
      error: 'access_denied',
      error_description: 'The user denied the authorization request',
    });
  });

  it.each([
    ['a code no device waits for', 'BBBB-BBBB', 'No device is waiting for code BBBB-BBBB'],
    ['text that is no code', '12', '"12" is not a code'],
  ])('%s: the code box again, with the reason', async (_name, typed, reason) => {
    page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${idp.issuer}/device`);
    await page.locator('input#user_code').fill(typed);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('#error').waitFor();
    expect(await page.locator('#error').textContent()).toContain(reason);
    if (typed === 'BBBB-BBBB') await shot('device-unknown-phone');
  });

  it('the inspector lists a pending CIBA request with its binding message, and approves it', async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const { json } = await postForm(
      `${idp.issuer}/protocol/openid-connect/ext/ciba/auth`,
      { scope: 'openid', login_hint: 'ingrid', binding_message: 'Branch 12: code 4711' },
      basic('branch-desk', 'desk-pass'),
    );
    const id = json['auth_req_id'] as string;
    const device = await startDevice();
    await page.goto(`${idp.issuer}/mock/ui`);
    const row = page.locator('#waiting tr', { hasText: id });
    await row.waitFor();
    expect(await row.locator('td.binding').textContent()).toBe('Branch 12: code 4711');
    await page.locator('#waiting tr', { hasText: device.user_code }).waitFor();
    await shot('inspector-waiting-desktop');
    await row.locator('button[data-decision="approve"]').click();
    await row.waitFor({ state: 'detached' });
    const tokens = await postForm(
      idp.endpoints.token,
      { grant_type: CIBA, auth_req_id: id },
      basic('branch-desk', 'desk-pass'),
    );
    expect(tokens.status, tokens.text).toBe(200);
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('inspector-waiting-phone');
    // A device code: the username typed survives the page's refresh every second; Approve uses it.
    const deviceRow = page.locator('#waiting tr', { hasText: device.user_code });
    await deviceRow.locator('input').fill('ola');
    await page.waitForTimeout(1500);
    expect(await deviceRow.locator('input').inputValue()).toBe('ola');
    await deviceRow.locator('button[data-decision="approve"]').click();
    await deviceRow.waitFor({ state: 'detached' });
    const deviceTokens = await poll(device.device_code);
    expect(deviceTokens.status, deviceTokens.text).toBe(200);
    expect((await verifyToken(idp, deviceTokens.json['access_token'] as string)).claims['name']).toBe(
      'Ola Strand',
    );
  });
});
