// RBAC as sets of permissions, `verb group/resource` (group `core` for the core API, subresources as
// `resource/sub`): what Roles and ClusterRoles grant, what an API server's audit log shows a user did.

export interface RbacRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
}

export interface RbacDoc {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: RbacRule[];
}

function permission(verb: string, group: string, resource: string): string {
  return `${verb} ${group === '' ? 'core' : group}/${resource}`;
}

/** Every permission the Roles and ClusterRoles among `docs` grant (no wildcards expected: they are refused). */
export function permissionsGranted(docs: readonly RbacDoc[]): Set<string> {
  const granted = new Set<string>();
  for (const doc of docs.filter((d) => d.kind === 'Role' || d.kind === 'ClusterRole')) {
    for (const rule of doc.rules ?? []) {
      for (const group of rule.apiGroups ?? []) {
        for (const resource of rule.resources ?? []) {
          for (const verb of rule.verbs) {
            if ([group, resource, verb].includes('*')) throw new Error(`${doc.kind}/${doc.metadata.name} grants a wildcard`);
            granted.add(permission(verb, group, resource));
          }
        }
      }
    }
  }
  return granted;
}

export interface AuditEvent {
  user?: { username?: string };
  verb?: string;
  requestURI?: string;
  objectRef?: { resource?: string; subresource?: string; apiGroup?: string };
}

/** The audit events (JSON lines) of `user` that touched a resource (discovery and other non-resource URLs aside). */
export function resourceEventsOf(auditLog: string, user: string): AuditEvent[] {
  return auditLog
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as AuditEvent)
    .filter((e) => e.user?.username === user && e.objectRef?.resource !== undefined);
}

export function permissionOf(e: AuditEvent): string {
  const ref = e.objectRef!;
  return permission(e.verb ?? '?', ref.apiGroup ?? '', ref.subresource ? `${ref.resource}/${ref.subresource}` : ref.resource!);
}

/** What is granted but never used, and used but not granted; both empty when the grant is exact. */
export function compareGrant(granted: ReadonlySet<string>, used: ReadonlySet<string>): { unused: string[]; ungranted: string[] } {
  return {
    unused: [...granted].filter((p) => !used.has(p)).sort(),
    ungranted: [...used].filter((p) => !granted.has(p)).sort(),
  };
}
