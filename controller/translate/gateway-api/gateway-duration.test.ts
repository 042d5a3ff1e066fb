import test from 'ava';
import { parseGatewayDuration } from './gateway-duration.js';

test('GEP-2257 durations: the spec examples and its refusals', (t) => {
  t.is(parseGatewayDuration('0s'), 0);
  t.is(parseGatewayDuration('500ms'), 500);
  t.is(parseGatewayDuration('1h'), 3_600_000);
  t.is(parseGatewayDuration('2h45m'), 9_900_000);
  t.is(parseGatewayDuration('1m30s'), 90_000);
  t.is(parseGatewayDuration('1h2m3s4ms'), 3_723_004);
  for (const bad of ['', '1', '1.5s', '-1s', '1d', '100000s', '1h1h1h1h1h', ' 1s', '1S']) t.is(parseGatewayDuration(bad), undefined, bad);
});
