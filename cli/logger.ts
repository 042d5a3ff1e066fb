import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout. Key material is never logged; these paths are redacted defensively. */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    base: { app: 'envoy-ingress' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['*.privateKey', '*.private_key', '*.data["tls.key"]', 'data["tls.key"]'], censor: '[redacted]' },
  };
  return destination ? pino(options, destination as pino.DestinationStream) : pino(options);
}
