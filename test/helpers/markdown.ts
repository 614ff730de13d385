// Code blocks of a markdown file, with `<!-- file: PATH -->` pins, and a runner for `sh` blocks.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface Block {
  lang: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The file a `<!-- file: PATH -->` marker above the block pins it to. */
  file?: string;
}

export function codeBlocks(markdown: string): Block[] {
  const out: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    // The marker is the nearest line above that is not blank (prettier puts a blank line in between).
    let above = i - 1;
    while (above > 0 && (lines[above] ?? '').trim() === '') above--;
    const marker = /^<!-- file: (\S+) -->$/.exec(lines[above] ?? '');
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i] ?? '');
    out.push({
      lang: open[1] ?? '',
      body: body.join('\n'),
      line: start + 1,
      ...(marker?.[1] ? { file: marker[1] } : {}),
    });
  }
  return out;
}

/** The text of the section under `heading` (a `## ` heading), up to the next `## `. */
export function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "## ${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/**
 * How long one `sh` block may run: a block that runs `npx mock-idp ...` takes ~3 s alone, but over 30 s
 * was seen while the full suite loads both cores (load 7 to 9).
 */
export const SHELL_BLOCK_TIMEOUT_MS = 90_000;

/** Runs an `sh` block with bash against a server on `port` (the examples say 127.0.0.1:8080). */
export async function runShellBlock(block: Block, port: number): Promise<string> {
  const script = block.body.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`);
  const { stdout } = await exec('bash', ['-euo', 'pipefail', '-c', script], {
    timeout: SHELL_BLOCK_TIMEOUT_MS,
  });
  return stdout;
}

/** The `# → text` lines a block shows as its output (a leading `…` stands for a path that varies). */
export function shownOutput(block: Block): string[] {
  return [...block.body.matchAll(/^# → (?:…)?(.*)$/gm)].map((m) => m[1] ?? '');
}
