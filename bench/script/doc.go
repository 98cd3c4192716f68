// Package script is pgbench's script language, as a pure Go package with no
// database access: builtin scripts, the script parser (SQL splitting,
// meta-commands, expressions), the expression evaluator with every pgbench
// function, pgbench's random generator and seeding, per-client variables,
// and the helpers the benchmark engine (package bench) calls to run
// meta-commands and to send SQL. Behaviour and message texts follow pgbench
// 17/18 (src/bin/pgbench/pgbench.c, exprparse.y, exprscan.l, and
// src/fe_utils/psqlscan.l for splitting, whose quoting and comment rules
// are package internal/sqllex's, shared with the other readers of SQL).
//
// # Setting up a run
//
// One Symbols table is shared by all scripts and clients of a run. Parse
// every script with it, in pgbench's order (-b/-f/-N/-S as given; the
// default is the tpcb-like builtin):
//
//	syms := script.NewSymbols()
//	b, err := script.FindBuiltin("tpcb")           // -b tpcb[@w]: SplitWeight first
//	s1, err := b.Parse(syms)                         // Source "<builtin: TPC-B (sort of)>"
//	s2, err := script.Parse("my.sql", text, syms)    // -f my.sql; the engine reads the file
//
// Parse errors (*SyntaxError, *ConditionError, *EmptyScriptError) print
// pgbench's text; pgbench prefixes the first line with "pgbench: error: "
// and exits with status 1. Other texts the engine prints as pgbench does:
// BuiltinList for "-b list" and after a *BuiltinError, Builtin.ShowScript
// for --show-script, *WeightError for a bad "@weight", ErrZeroTotalWeight
// (CheckTotalWeight), "at most 128 SQL scripts are allowed" (MaxScripts).
// In extended and prepared modes call Script.CheckParams on each script
// (pgbench's "statement has too many arguments (maximum is 255)").
//
// Then the variables. pgbench builds client 0's variables and copies them to
// the other clients; the engine does the same with one Variables per client
// (NewVariables(syms) or Clone), before any client runs:
//
//   - -D NAME=VALUE: ParseDefine, then DefineString("option", name, value).
//   - unless already set by -D (IsDefined): DefineInt("startup", "scale", s),
//     DefineInt("startup", "client_id", i) per client,
//     DefineInt("startup", "default_seed", rr.DefaultSeed) and
//     DefineInt("startup", "random_seed", int64(seed)).
//
// Random states come from DeriveRunRandom(seed, nclients, nthreads,
// defaultSeedDefined), where seed is ParseRandomSeed(--random-seed, or
// PGBENCH_RANDOM_SEED, or "time") and nthreads is already capped to
// nclients. Client i evaluates with rr.Clients[i]; thread t chooses scripts
// with rr.Threads[t].Choose (ChooseScript), schedules -R with
// rr.Threads[t].Throttle (PRNG.Poisson) and samples the log with
// rr.Threads[t].Sample (PRNG.Double). Given the same seed, every value equals
// pgbench's: the generator is pg_prng's xoroshiro128**, bit for bit, and
// where pgbench calls glibc's exp, log, pow and sin (random_exponential,
// random_gaussian, random_zipfian, the -R schedule, and the exp(), ln() and
// pow() functions) this package uses correctly rounded versions, since Go's
// math package differs from glibc in the last bits often enough to change
// results (random_zipfian with a parameter near 1, for instance). The
// distributions first compute with Go's fast functions and switch to the
// precise ones only when an error bound says the result could differ.
// glibc itself is only within 0.52 ULP, so a result can still differ from
// pgbench's in very rare cases (about 1 in 1000 libm calls, and only if
// that changes an integer result).
//
// All this set-up may add names to Symbols; then call syms.Freeze() and
// start the clients. A frozen table is read-only and safe to share; on it,
// Define* and StoreColumn for a name no script reads just check the name and
// drop the value. Scripts, Commands and Exprs are read-only after Parse and
// are shared by all clients; Variables, Env, PRNG and CondStack are per
// client.
//
// # Running commands
//
// Each client keeps an Env (its Variables, a pointer to its PRNG, the debug
// writer) and a CondStack. For each command of the chosen script, with
// Env.Script and Env.Command set to the script and 0-based command index:
//
//   - SQLCommand: in simple mode send AppendSQL(buf[:0], vars); in extended
//     mode send ParamSQL with AppendParams(params[:0], vars) (nil means SQL
//     NULL); in prepared mode prepare ParamSQL once per connection under a
//     name (pgbench uses "P_<n>", n counting SQL commands of all scripts in
//     order) and execute it with AppendParams. Meta MetaGset / MetaAset
//     means results go to variables via Variables.StoreColumn(meta.String(),
//     VarPrefix, column, value): \gset takes the single row of the last
//     result ("expected one row, got %d" otherwise), \aset the last row of
//     every non-empty result. Both are refused in pipeline mode.
//   - MetaSet: ExecSet(env). MetaIf / MetaElif: EvalCondition(env) and the
//     CondStack logic of pgbench's executeMetaCommand / CSTATE_SKIP_COMMAND.
//     MetaElse / MetaEndif: CondStack only.
//   - MetaSleep: SleepMicros(vars) microseconds, then sleep.
//   - MetaShell: ShellCommand(vars), run with /bin/sh -c; a non-zero exit is
//     ShellLaunchError. MetaSetshell: the same, then SetShellResult(vars,
//     stdout).
//   - MetaStartPipeline / MetaSyncPipeline / MetaEndPipeline: the engine's
//     pipeline handling; its run-time failures are PipelineError with the
//     Reason* constants ("cannot use pipeline mode with the simple query
//     protocol", "already in pipeline mode", "not in pipeline mode", ...),
//     also for an SQL command with \gset or \aset inside a pipeline. In
//     prepared mode pgbench prepares every command up to the next
//     \endpipeline before entering the pipeline (PipelineEnd gives that
//     index).
//
// Run-time failures of meta-commands are *ExecError: pgbench logs Detail
// (when not empty) and then the line from AbortMessage, e.g.
//
//	pgbench: error: division by zero
//	pgbench: error: client 0 aborted in command 1 (set) of script 0; evaluation of meta-command failed
//
// Evaluating a numeric expression, assigning it and substituting variables
// (AppendSQL, AppendParams) do not allocate once buffers have grown, so the
// per-transaction path of the builtin scripts is allocation-free.
//
// # Values and variables
//
// A Value is NULL, a boolean, an int64 or a double, with pgbench's coercions
// and overflow checks ("bigint add out of range", "division by zero",
// "double to int overflow for %f", ...). Variables keep pgbench's lazy
// strings: a value set from -D, \gset or \aset is interpreted when an
// expression reads it ("null", prefixes of true/yes/false/no, on/off, int,
// double; otherwise `malformed variable "x" value: "y"`), while SQL
// substitution sends the original string. Typed values are substituted as
// pgbench prints them: decimal integers, doubles with "%.15g", true/false,
// NULL.
//
// # Known differences from pgbench
//
//   - pgbench 17/18 report a \gset/\aset placement error at the line of the
//     backslash; pgbench 15 reports the line where scanning resumed after the
//     previous command. This package follows 17/18.
//   - pgbench loops forever on random_zipfian with a NaN parameter; here it
//     is the usual "zipfian parameter must be in range" error.
//   - Where pgbench's C has undefined behaviour, this package does what
//     pgbench does on x86-64 Linux: shift counts are taken modulo 64,
//     abs(true) is the denormal double 5e-324, NaN converts to INT64_MIN.
package script
