// How a test layer asks for a real service. Missing services skip with a message on a developer machine and fail
// the run when COEVOLVE_REQUIRE_ALL=1 (CI), so a green CI run means every real part was really exercised.
export const requireAll = process.env.COEVOLVE_REQUIRE_ALL === '1';

export async function needService(ctx: Mocha.Context, name: string, check: () => Promise<string | undefined>): Promise<void> {
  let problem: string | undefined;
  try {
    problem = await check();
  } catch (err) {
    problem = err instanceof Error ? err.message : String(err);
  }
  if (problem === undefined) return;
  if (requireAll) throw new Error(`${name} is required (COEVOLVE_REQUIRE_ALL=1) but unavailable: ${problem}`);
  console.log(`    skipping: ${name} unavailable (${problem})`);
  ctx.skip();
}
