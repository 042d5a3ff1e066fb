// Options shared by the commands that translate (run, render, validate), with their defaults.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { EnvoyOptions } from '../envoy/resource-types.js';
import { defaultTranslateOptions, type TranslateOptions } from '../controller/translate/options.js';
import { parsePort } from './address.js';

export interface TranslationFlags {
  ingressClass: string;
  controllerName: string;
  notFoundPage?: string;
  httpsRedirectPort: string;
  listenAddress: string;
  httpPort: string;
  httpsPort: string;
}

export function addTranslationFlags(cmd: Command): Command {
  return cmd
    .option('--ingress-class <name>', 'IngressClass name this controller serves', defaultTranslateOptions.ingressClassName)
    .option('--controller-name <name>', 'IngressClass spec.controller value that marks our classes', defaultTranslateOptions.controllerName)
    .option('--not-found-page <file>', 'HTML file returned with 404 when nothing matches')
    .option('--https-redirect-port <port>', 'port in http->https redirects', String(defaultTranslateOptions.httpsRedirectPort))
    .option('--listen-address <ip>', 'address Envoy listeners bind', '0.0.0.0')
    .option('--http-port <port>', 'Envoy HTTP listener port', '8080')
    .option('--https-port <port>', 'Envoy HTTPS listener port', '8443');
}

export function translationOptions(flags: TranslationFlags): { translate: TranslateOptions; envoy: EnvoyOptions } {
  return {
    translate: {
      ingressClassName: flags.ingressClass,
      controllerName: flags.controllerName,
      notFoundPage: flags.notFoundPage ? readFileSync(flags.notFoundPage, 'utf8') : defaultTranslateOptions.notFoundPage,
      httpsRedirectPort: parsePort(flags.httpsRedirectPort, '--https-redirect-port'),
    },
    envoy: {
      listenAddress: flags.listenAddress,
      httpPort: parsePort(flags.httpPort, '--http-port'),
      httpsPort: parsePort(flags.httpsPort, '--https-port'),
    },
  };
}
