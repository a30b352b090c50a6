/**
 * QuickJS instances for the sandbox. The WASM module is compiled once per process; each instance
 * has its own fixed-size WebAssembly.Memory, because `runtime.setMemoryLimit` alone does not cap
 * memory in the prebuilt WASM. Every run starts on a pristine instance: a new one, or one whose
 * memory was put back to its snapshot (runner.ts `restoreVm`).
 */
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";

const PAGE = 64 * 1024;
/** The WASM declares a 16 MB initial memory; instantiation fails with less. */
const MIN_MEMORY_BYTES = 16 * 1024 * 1024;

let compiled: WebAssembly.Module | undefined;

export async function compileQuickJS(): Promise<WebAssembly.Module> {
  if (!compiled) {
    const path = Bun.fileURLToPath(import.meta.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"));
    compiled = await WebAssembly.compile(await Bun.file(path).arrayBuffer());
  }
  return compiled;
}

export interface QuickJSInstance {
  readonly module: QuickJSWASMModule;
  readonly memory: WebAssembly.Memory;
  readonly memoryBytes: number;
  /** Size of the memory right after instantiation (it only grows). */
  readonly initialBytes: number;
}

/** A fresh QuickJS WASM instance whose linear memory can never grow beyond `memoryBytes`. */
export async function newQuickJSInstance(memoryBytes: number): Promise<QuickJSInstance> {
  const wasmModule = await compileQuickJS();
  const bytes = Math.max(MIN_MEMORY_BYTES, Math.ceil(memoryBytes / PAGE) * PAGE);
  const memory = new WebAssembly.Memory({ initial: MIN_MEMORY_BYTES / PAGE, maximum: bytes / PAGE });
  const module = await newQuickJSWASMModuleFromVariant(newVariant(releaseSync, { wasmModule, wasmMemory: memory }));
  return { module, memory, memoryBytes: bytes, initialBytes: memory.buffer.byteLength };
}
