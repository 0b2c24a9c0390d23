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
	/**
	 * Ask for the denial report: every system call the seccomp filter refuses, on a pipe of
	 * this process's (stdio[4]), as 'denial' events and `denials`.  The profile must not name
	 * `denials` itself (spawn() throws); it is not modified.
	 */
	denials?: boolean;
}

/** A system call the seccomp filter refused: one line of the denial report (man __sandbox, `denials`). */
export interface DeniedCall {
	/** The call's name; null for a number libseccomp cannot name. */
	syscall: string | null;
	nr: number;
	/** What the command got: the errno and its name (EPERM, ENOSYS, ...). */
	errno: number;
	error: string;
	/** The calling thread, in the shim's PID namespace. */
	pid: number;
	arch: string;
	/** CLOCK_MONOTONIC in seconds. */
	monotonic: number;
}
/** Lines lost to a reader that fell 64 KiB behind. */
export interface DroppedDenials { dropped: number; }
/** A line that is not JSON (a listener killed mid-write). */
export interface UnparsedDenial { raw: string; }
export type Denial = DeniedCall | DroppedDenials | UnparsedDenial;

export interface SandboxedProcess extends ChildProcess {
	/**
	 * Resolves when the command has exited and its stdio (and report) have ended; rejects with
	 * a SandboxError if it never ran.  `denials` is there with options.denials.
	 */
	done: Promise<{ code: number | null; signal: NodeJS.Signals | null; denials?: Denial[] }>;
	/** The report's lines so far (complete once `done` resolved); null without options.denials. */
	denials: Denial[] | null;
	/** 'denial': one line of the report, as it arrives. */
	on(event: 'denial', listener: (denial: Denial) => void): this;
	on(event: string, listener: (...args: any[]) => void): this;
	once(event: 'denial', listener: (denial: Denial) => void): this;
	once(event: string, listener: (...args: any[]) => void): this;
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
