// The command-line reference, read from the commander definitions of cli/main.ts themselves: every command and
// every flag with its description, default and accepted values.
import { Command, type Option } from 'commander';
import { cell, code, escapeText, page, table } from './markdown.js';

/**
 * The `envoy-ingress` program as cli/main.ts defines it. main.ts builds the program at import time and then parses
 * process.argv; parseAsync is stubbed for the import so the definitions are read without running a command.
 */
export function loadProgram(): Promise<Command> {
  // An ES module runs once per process: a second import would not call parseAsync again.
  loaded ??= importProgram();
  return loaded;
}

let loaded: Promise<Command> | undefined;

async function importProgram(): Promise<Command> {
  let program: Command | undefined;
  const parseAsync = Command.prototype.parseAsync;
  Command.prototype.parseAsync = function (this: Command) {
    program = this;
    return Promise.resolve(this);
  };
  try {
    await import('../../cli/main.js');
  } finally {
    Command.prototype.parseAsync = parseAsync;
  }
  if (program === undefined) throw new Error('cli/main.ts did not call program.parseAsync: the CLI reference cannot read its commands');
  return program;
}

/** Every flag of every command: what the page must list (the test counts them against this). */
export function commandFlags(program: Command): { command: string; flag: string }[] {
  return program.commands.flatMap((cmd) => cmd.options.map((o) => ({ command: cmd.name(), flag: o.long ?? o.flags })));
}

function defaultOf(option: Option): string {
  if (option.negate) return '';
  const value: unknown = option.defaultValue;
  if (value === undefined) return '';
  return code(typeof value === 'string' ? value : JSON.stringify(value));
}

function descriptionOf(option: Option): string {
  const parts = [cell(option.description)];
  if (option.argChoices) parts.push(`one of ${option.argChoices.map((c) => code(c)).join(', ')}`);
  if (option.mandatory) parts.push('**required**');
  return parts.join('; ');
}

export async function cliReferencePage(): Promise<string> {
  const program = await loadProgram();
  const sections = program.commands.map((cmd) => {
    const rows = cmd.options.map((o) => [code(o.flags), descriptionOf(o), defaultOf(o)]);
    return [`## ${cmd.name()}`, '', `${escapeText(cmd.description())}.`, '', code(`envoy-ingress ${cmd.name()} [flags]`), '', table(['Flag', 'What it does', 'Default'], rows)].join('\n');
  });
  const total = commandFlags(program).length;
  return page(
    'the commander definitions of `cli/main.ts` and `cli/controller-options.ts`',
    'Command-line flags',
    `Every command of \`envoy-ingress\` (${program.commands.length} commands, ${total} flags in all), as \`envoy-ingress help <command>\` prints them. ` +
      'A flag `--no-X` turns off something that is on by default. How the commands fit together: [Running the controller](../guides/command-line.md).',
    ...sections,
  );
}
