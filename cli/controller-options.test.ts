import { writeFile } from 'node:fs/promises';
import test from 'ava';
import { Command } from 'commander';
import { defaultTranslateOptions } from '../controller/translate/options.js';
import { createTempDir } from '../test/harness/temp-dir.js';
import { addTranslationFlags, translationOptions, type TranslationFlags } from './controller-options.js';

/** Parses argv with the real commander flags and returns the options the commands build from them. */
function parse(argv: string[]): ReturnType<typeof translationOptions> {
  const cmd = addTranslationFlags(new Command('render')).exitOverride();
  cmd.parse(argv, { from: 'user' });
  return translationOptions(cmd.opts<TranslationFlags>());
}

test('defaults match the translator defaults and listen on all interfaces', (t) => {
  t.deepEqual(parse([]), {
    translate: defaultTranslateOptions,
    envoy: { listenAddress: '0.0.0.0', httpPort: 8080, httpsPort: 8443 },
  });
});

test('flags set every option; ports become numbers', (t) => {
  const options = parse([
    '--ingress-class', 'mine',
    '--controller-name', 'example.com/ctl',
    '--https-redirect-port', '4443',
    '--listen-address', '127.0.0.1',
    '--http-port', '1080',
    '--https-port', '1443',
  ]);
  t.deepEqual(options, {
    translate: { ...defaultTranslateOptions, ingressClassName: 'mine', controllerName: 'example.com/ctl', httpsRedirectPort: 4443 },
    envoy: { listenAddress: '127.0.0.1', httpPort: 1080, httpsPort: 1443 },
  });
});

test('--not-found-page reads the page from a file', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  await writeFile(tmp.file('404.html'), '<h1>gone</h1>');
  t.is(parse(['--not-found-page', tmp.file('404.html')]).translate.notFoundPage, '<h1>gone</h1>');
});

test('a bad port names its flag', (t) => {
  t.throws(() => parse(['--http-port', 'eighty']), { message: /^--http-port must be a port number/ });
  t.throws(() => parse(['--https-redirect-port', '70000']), { message: /^--https-redirect-port must be a port number/ });
});
