// The default host of Ingresses made for annotated Services, apart from the manager so that the CLI can show it
// in --help without loading the Kubernetes client.
export const defaultServiceIngressHostTemplate = '{name}.{namespace}.example.com';
