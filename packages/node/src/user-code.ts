/**
 * What the master may use of the node to run a user's code on its own host (Scrapy introspection, the syntax check
 * of a converted spider, a project's workspace): the task identity, the sandbox and the environment a task gets.
 * The master imports nothing else of the node's internals. The Scrapy tools introspect a project in the environment
 * its tasks get: the spider's own, built from its requirements as a task's is, in its source folder.
 */
export { asTaskUser, baseEnv, giveTree, removeUserTreeAsync, taskIdentity, type TaskIdentity } from './sandbox.ts';
export { jailSupport, spawnJailed } from './tenancy/jail.ts';
export { taskEnvironment, type TaskEnvironment } from './environments/spider-env.ts';
export { defaultWorkDir } from './environments/places.ts';
export { sourceFolderIn } from './source-folder.ts';
