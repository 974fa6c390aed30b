// Types of scripts/web-build.mjs (plain JavaScript: the toolchain script runs on the machine's Node before the pinned one exists).
export declare const WEB_BUILD_INPUTS: string[];
export declare function webBuildPaths(root: string): { dist: string; stamp: string };
export declare function webBuildKey(root: string): string;
export declare function builtKey(root: string): string | null;
export declare function ensureWebBuild(root: string, build: () => Promise<number>, log?: (line: string) => void): Promise<{ built: boolean; status: number }>;
