import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../reliability/support/child-agent';

const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** A PostgreSQL server of the test's own: its data in a temp folder, on a free loopback port. */
export interface TempPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  dataDir: string;
  start(): void;
  /** `pg_ctl stop -m fast`: backends are terminated, the port closes. */
  stop(): void;
  /** SIGKILL to the postmaster and every backend: a crash, recovered from WAL on the next start. */
  kill9(): void;
  /** Stops whatever still runs and deletes the data folder. Never throws. */
  destroy(): void;
}

/** True when initdb and pg_ctl are installed where PG_BIN (default PostgreSQL 15's folder) says. */
export const tempPostgresAvailable = (): boolean => existsSync(join(BIN, 'initdb')) && existsSync(join(BIN, 'pg_ctl'));

/**
 * initdb into a temp folder and start it on a free port of 127.0.0.1 (trust auth, socket in the
 * data folder). initdb refuses root, so as root every server command runs as the `postgres` user.
 * Every command is bounded in time.
 */
export async function createTempPostgres(): Promise<TempPostgres> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'restap-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = postgresUser();
    chownSync(dataDir, uid, gid);
  }
  const run = (tool: string, args: string[], timeoutMs = 60_000): void => {
    const [cmd, ...rest] = asRoot ? ['runuser', '-u', 'postgres', '--', join(BIN, tool), ...args] : [join(BIN, tool), ...args];
    execFileSync(cmd, rest, { stdio: 'pipe', timeout: timeoutMs });
  };
  const running = (): number | undefined => {
    const pidFile = join(dataDir, 'postmaster.pid');
    if (!existsSync(pidFile)) return undefined;
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    return pid > 0 && existsSync(`/proc/${pid}`) ? pid : undefined;
  };
  run('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const pg: TempPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    start: () =>
      run('pg_ctl', ['-D', dataDir, '-l', join(dataDir, 'server.log'), '-w', '-t', '30', '-o', `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on`, 'start']),
    stop: () => run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '30', 'stop']),
    kill9: () => {
      const postmaster = running();
      if (!postmaster) return;
      const backends = childrenOf(postmaster);
      for (const pid of [postmaster, ...backends]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      const deadline = Date.now() + 10_000;
      while ([postmaster, ...backends].some((pid) => existsSync(`/proc/${pid}`) && !isZombie(pid)) && Date.now() < deadline) {
        execFileSync('sleep', ['0.05']);
      }
      // The killed postmaster may linger as a zombie when nothing reaps orphans (a container's init):
      // PostgreSQL would take it for a live server. Every process is dead, so the lock is stale.
      for (const file of ['postmaster.pid', `.s.PGSQL.${port}.lock`, `.s.PGSQL.${port}`]) rmSync(join(dataDir, file), { force: true });
    },
    destroy: () => {
      try {
        if (running()) pg.kill9();
      } catch {
        // best effort
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  pg.start();
  return pg;
}

function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('createTempPostgres: running as root needs a `postgres` OS user to run initdb and the server.');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Pids whose parent is `pid` (the postmaster's backends and helpers), read from /proc. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return children;
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}
