#!/usr/bin/env node
// The browser test drives Debian's Chromium (never a downloaded browser). On a fresh
// machine it is not installed yet: install it from Debian's packages when we can.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const chromium = '/usr/bin/chromium';
if (!existsSync(chromium)) {
  if (process.getuid?.() !== 0) {
    console.error(`[test] ${chromium} is missing and this is not root: install Debian's chromium package for the browser test`);
    process.exit(0);
  }
  console.error('[test] installing Debian chromium for the browser test');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install = update.status === 0 ? spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env }) : update;
  if (install.status !== 0) console.error('[test] could not install chromium; the browser test will say so');
}
