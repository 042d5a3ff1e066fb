// Secret content inside the IR (a private key, password hashes) that does not print itself: JSON, string
// conversion and templates give "[redacted]", so it cannot reach a log, a diagnostic or a golden file by accident.
// `reveal()` is the one way to read it, where Envoy's resources or the auth check need it.
export abstract class SecretText {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  reveal(): string {
    return this.#text;
  }
  toJSON(): string {
    return '[redacted]';
  }
  toString(): string {
    return '[redacted]';
  }
}
