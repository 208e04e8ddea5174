import { describe, expect, it } from 'vitest';
import { DEFAULT_FACT_KINDS, FACT_KEY_PATTERN, normaliseFactKey } from './fact-keys.js';

describe('fact key grammar <kind>.<subject>.<aspect>', () => {
  it('accepts keys in the grammar unchanged', () => {
    for (const key of ['tool.deploy-tool.success-usage', 'tag.deploy.success-ratio', 'environment.s3.bucket-layout'])
      expect(normaliseFactKey(key)).toEqual({ ok: true, key, changed: false });
  });

  it.each([
    ['tool.deploy_tool.success-usage', 'tool.deploy-tool.success-usage'],
    ['Tools.DeployTool.successRate', 'tool.deploy-tool.success-rate'],
    ['tool/deploy:retry policy', 'tool.deploy.retry-policy'],
    ['tool.docker.compose.restart-policy', 'tool.docker.compose-restart-policy'],
    ['preference.Café.Thé', 'preference.cafe.the'],
    ['tool.deploy.used-5-times', 'tool.deploy.used-times'],
    ['pitfall.deploy-2026-03-01.rollback', 'pitfall.deploy.rollback'],
    ['practice.deploy.3rd-attempt-works', 'practice.deploy.attempt-works'],
    ['environment.node-20.install-path', 'environment.node.install-path'],
    ['  tool..deploy..usage  ', 'tool.deploy.usage'],
  ])('normalises %s to %s', (raw, key) => {
    expect(normaliseFactKey(raw)).toEqual({ ok: true, key, changed: true });
    expect(FACT_KEY_PATTERN.test(key)).toBe(true);
  });

  it.each([
    [undefined, /missing/],
    [42, /a number, not a string/],
    ['', /empty/],
    ['deploy-tool', /1 usable segment/],
    ['tool.deploy', /2 usable segments/],
    ['tag.deploy.2026-03-01', /2 usable segments/],
    ['weather.today.sunny', /kind "weather", which is not one of tool, tag/],
    [`tool.${'x'.repeat(61)}.usage`, /over 60 characters/],
  ])('refuses %s with a reason', (raw, reason) => {
    const r = normaliseFactKey(raw);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.reason).toMatch(reason);
  });

  it('takes a closed list of kinds, or any kind when the list is empty', () => {
    expect(DEFAULT_FACT_KINDS).toContain('tool');
    expect(normaliseFactKey('weather.today.sunny', ['weather'])).toEqual({
      ok: true,
      key: 'weather.today.sunny',
      changed: false,
    });
    expect(normaliseFactKey('anything.at.all', [])).toMatchObject({ ok: true });
    expect(normaliseFactKey('tool.a.b', ['weather']).ok).toBe(false);
  });

  it('is stable: normalising a normalised key changes nothing', () => {
    for (const raw of ['Tools.DeployTool.successRate', 'tool/deploy:used 5 times', 'a.b.c.d.e', 'Tags.X_Y.z']) {
      const once = normaliseFactKey(raw, []);
      if (!once.ok) continue;
      expect(normaliseFactKey(once.key, [])).toEqual({ ok: true, key: once.key, changed: false });
    }
  });
});
