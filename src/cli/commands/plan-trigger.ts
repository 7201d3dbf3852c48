/** `baton plan trigger <namespace/instance> <plan> [--arg K=V]`: a commit that requests a plan run once. */
import type { Command } from 'commander';
import { parseArgs } from '../../sync/request-file.js';
import { authFromEnv } from '../../sync/repo-access.js';
import { triggerPlan } from '../../sync/trigger.js';
import type { CliIO } from '../io.js';
import { collectArg } from './render.js';
import { UsageError, deprecatedAlias } from '../conventions.js';

interface TriggerFlags {
  arg: string[];
  git: string;
  branch: string;
}

export function registerPlanTrigger(plan: Command, io: CliIO): void {
  const trigger = plan
    .command('trigger')
    .description('Request a plan through a Git commit (requests/<namespace>/<instance>.yaml); the agent runs it once')
    .argument('<instance>', '<namespace>/<name>')
    .argument('<plan>', 'plan name, e.g. backup')
    .option('--arg <key=value>', 'one-shot argument for this run (repeatable)', collectArg, [])
    .option('--git <url|path>', 'Git repository: a working clone commits locally (you push); a URL or bare repository is pushed', '.')
    .option('--branch <name>', 'branch the agent watches', 'main')
    .action(async (instance: string, planName: string, flags: TriggerFlags) => {
      const [namespace, name, extra] = instance.split('/');
      if (!namespace || !name || extra !== undefined) {
        throw new UsageError(`instance ${JSON.stringify(instance)}: expected <namespace>/<name>`);
      }
      const args = parseArgs(flags.arg);
      const author = process.env.BATON_AUTHOR_NAME && process.env.BATON_AUTHOR_EMAIL ? { name: process.env.BATON_AUTHOR_NAME, email: process.env.BATON_AUTHOR_EMAIL } : undefined;
      const result = await triggerPlan({ repo: flags.git, branch: flags.branch, cwd: io.cwd, auth: authFromEnv() }, { instance: { namespace, name }, plan: planName, args, ...(author ? { author } : {}) });
      io.stdout(`requested ${planName} for ${namespace}/${name} (id ${result.id}) in commit ${result.commit.slice(0, 12)}${result.pushed ? ', pushed' : '; push it for the agent to see it'}\n`);
    });
  deprecatedAlias(trigger, io, { flags: '--repo <url|path>', attribute: 'repo' }, { flag: '--git', attribute: 'git' });
}
