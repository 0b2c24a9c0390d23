// Types of sandbox-shim's API; the profile's own types are generated from
// policy/profile.schema.json (profile.d.ts).
import { ChildProcess, SpawnOptions, StdioNull, StdioPipe } from 'child_process';
import { Writable } from 'stream';
import { Profile } from './profile';

export * from './profile';

/** __sandbox did not run the command: `message` is the shim's one line. */
export class SandboxError extends Error {
	/** The shim's exit status: 125, 126 or 127. */
	exitCode: number;
}
/** 125: the sandbox could not be set up, nothing ran. */
export class SandboxRefused extends SandboxError { exitCode: 125; }
/** 126: the command exists but could not be executed. */
export class CommandNotExecutable extends SandboxError { exitCode: 126; }
/** 127: the command was not found on the sandbox's PATH. */
export class CommandNotFound extends SandboxError { exitCode: 127; }

type Std = StdioPipe | StdioNull | 'inherit' | number | import('stream').Stream;
export interface SandboxSpawnOptions extends Omit<SpawnOptions, 'stdio'> {
	/** Path of __sandbox; default $SANDBOX, else the binary packaged for process.arch. */
	sandbox?: string;
	/** stdin and stdout of the command (default 'pipe', 'pipe'); stderr is read by spawn(). */
	stdio?: [Std, Std];
	/** Where the command's stderr lines and the shim's notices go (default process.stderr). */
	stderr?: Writable;
}

export interface SandboxedProcess extends ChildProcess {
	/** Resolves when the command exits; rejects with a SandboxError if it never ran. */
	done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Start argv confined by profile; the profile travels on fd 3. */
export function spawn(profile: Profile, argv: string[], options?: SandboxSpawnOptions): SandboxedProcess;

/** One part of a plan the host cannot enforce (--check's `refused` and `left_out`). */
export interface PlanPart {
	part: string;
	reason: string;
	where?: string;
	allow_with?: string;
	[key: string]: unknown;
}
/** The plan __sandbox --check prints (doc/plan.schema.json). */
export interface Plan {
	refused: PlanPart[];
	left_out: PlanPart[];
	notices: string[];
	remarks: string[];
	[key: string]: unknown;
}
/** The plan for profile; refused is empty when the host would run it. Rejects with SandboxRefused for an invalid profile. */
export function check(profile: Profile, options?: { sandbox?: string }): Promise<Plan>;
/** What this host can enforce (doc/probe.schema.json). */
export function probe(options?: { sandbox?: string }): Promise<{ version: string; kernel: string; [key: string]: unknown }>;

/** The packaged binary for arch (default process.arch); throws when none is packaged for it. */
export function binaryFor(arch?: string, platform?: string): string;
/** options.sandbox, else $SANDBOX, else binaryFor(). */
export function binaryPath(options?: { sandbox?: string }): string;
