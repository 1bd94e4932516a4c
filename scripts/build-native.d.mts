// Types of scripts/build-native.mjs's exports (for test/scripts/build-native.test.ts).
export interface CmakeCache { cudaCompiler?: string; cudaOption?: boolean }
export function readCache(text: string): CmakeCache;
export function needsReconfigure(env: Record<string, string | undefined>, cache: CmakeCache): boolean;
export function cudaPlan(o: { env: Record<string, string | undefined>; cache: CmakeCache; cudaTargetExists: boolean; cudaLibExists: boolean; cores: number }): { build: boolean; notice?: string };
