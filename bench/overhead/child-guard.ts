// Preload (`node --import`) for every server the benchmark starts: when the benchmark's pipe to
// the child's stdin closes (the benchmark exited, even by SIGKILL), the child stops too.
process.stdin.on('data', () => {});
process.stdin.once('close', () => {
  process.kill(process.pid, 'SIGTERM');
  setTimeout(() => process.exit(1), 3000).unref();
});
process.stdin.resume();
