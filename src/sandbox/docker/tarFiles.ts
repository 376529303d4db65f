
/** The uid/gid agent commands run as; the workspace and its files belong to it so the agent can edit them. */
export const agentUid = 65534;
