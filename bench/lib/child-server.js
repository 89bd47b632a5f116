'use strict';
// Runs a bench server script (express-floor.js, talk-floor.js) as its own process, like the agent.
const { fork } = require('node:child_process');
const { cpuMsOf } = require('./server');

/**
 * Forks `file` with `args`; the child sends its port once it listens and exits when sent any
 * message. Returns its URL, its pid, its CPU so far (ms) and stop(). `wrapper` runs node under
 * another program that keeps the pid (valgrind), `nodeArgs` are node's own flags (V8's too), `env`
 * adds to the environment.
 */
async function startChildServer(file, args, { wrapper = [], nodeArgs = [], env = {} } = {}) {
  const [execPath, ...execArgv] = [...wrapper, process.execPath, ...nodeArgs];
  const child = fork(file, args, {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
    ...(wrapper.length ? { execPath, execArgv } : nodeArgs.length ? { execArgv: [...process.execArgv, ...nodeArgs] } : {}),
  });
  const port = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${file} exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    cpuMs: () => cpuMsOf(child.pid),
    stop: () =>
      new Promise((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => { clearTimeout(timer); resolve(); });
        child.send('stop');
      }),
  };
}

module.exports = { startChildServer };
