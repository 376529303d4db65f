// Dialogue-only plays (no sandbox, no verifier) now live beside the user evolver, which estimates its moves with
// them: src/builtin/user/dialoguePlay.ts.
export { playDialogue, type DialogueOutcome } from '../../src/builtin/user/dialoguePlay.js';
