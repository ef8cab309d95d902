/** Synthetic runtime evidence for the runtime performance metrics' tables (no browser). */
import { gathered } from '../../../core/evidence.js';
import type { MemorySample, RuntimeEvidence, RuntimeInteraction } from '../../../core/runtime-evidence.js';

/** `n` frames 16.7 ms apart whose CPU costs cycle through `costs`. */
export function frames(n: number, costs: number[]): RuntimeEvidence['frames'] {
  // every frame's cost in the page's animation-frame callbacks (an animation drawn by script)
  return Array.from({ length: n }, (_, i) => ({
    at: Math.round(i * 16.7),
    cpuMs: costs[i % costs.length]!,
    rafCpuMs: costs[i % costs.length]!,
    wallMs: costs[i % costs.length]! + 1,
  }));
}

export function key(input: string, handlerCpuMs: number | undefined, latencyMs: number | null = null): RuntimeInteraction {
  return { input, latencyMs, answeredMs: 30, ...(handlerCpuMs !== undefined ? { handlerCpuMs } : {}) };
}

/** Memory samples at 0, 1000 and 1700 ms with the heap (MB) and node counts given. */
export function memory(heapMb: [number, number, number], nodes: [number, number, number] = [20, 20, 20]): MemorySample[] {
  return [0, 1000, 1700].map((at, i) => ({ at, heapBytes: Math.round(heapMb[i]! * 1e6), nodes: nodes[i]!, listeners: 0 }));
}

export function runtime(over: Partial<RuntimeEvidence> = {}): { runtime: ReturnType<typeof gathered<RuntimeEvidence>> } {
  return {
    runtime: gathered({
      traced: true,
      windowMs: 1000,
      frames: [],
      presented: 0,
      dropped: 0,
      interactions: [],
      inputListeners: [],
      memory: memory([1, 1, 1]),
      faults: [],
      timings: {},
      ...over,
    }),
  };
}
