export interface NodeguiPatch {
  file: string;
  why: string;
  from: string;
  to: string;
}
export const NODEGUI_PATCHES: NodeguiPatch[];
export function nodeguiPatchesHash(): string;
export function applyNodeguiPatches(pkgDir: string): void;
