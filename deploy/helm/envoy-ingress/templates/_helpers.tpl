{{/*
Object names and labels. With the release name envoy-ingress (or any name containing it) and no overrides, every
name is that of deploy/; the only label is app.kubernetes.io/name, as there (plus commonLabels). One release per
namespace (the selectors carry no instance label, to stay those of deploy/), unless nameOverride differs.
*/}}
{{- define "envoy-ingress.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "envoy-ingress.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The selector labels of every workload (and the Services selecting them). */}}
{{- define "envoy-ingress.selectorLabels" -}}
app.kubernetes.io/name: {{ include "envoy-ingress.name" . }}
{{- end -}}

{{/* metadata.labels of every object. */}}
{{- define "envoy-ingress.labels" -}}
{{ include "envoy-ingress.selectorLabels" . }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* repository:tag, or repository@digest when a digest is set. Argument: an image value. */}}
{{- define "envoy-ingress.image" -}}
{{- if .digest -}}
{{- printf "%s@%s" .repository .digest -}}
{{- else -}}
{{- printf "%s:%s" .repository (toString .tag) -}}
{{- end -}}
{{- end -}}

{{/* image: and imagePullPolicy: of a container. Argument: an image value. */}}
{{- define "envoy-ingress.imageFields" -}}
image: {{ include "envoy-ingress.image" . }}
{{- with .pullPolicy }}
imagePullPolicy: {{ . }}
{{- end }}
{{- end -}}

{{- define "envoy-ingress.bootstrapName" -}}
{{- printf "%s-bootstrap" (include "envoy-ingress.fullname" .) -}}
{{- end -}}

{{/* The xDS Service of `split`, and the name Envoy checks on the controller's certificate. */}}
{{- define "envoy-ingress.xdsHost" -}}
{{- printf "%s-xds.%s.svc" (include "envoy-ingress.fullname" .) .Release.Namespace -}}
{{- end -}}

{{/*
The `run` flags every variant shares, after its own: the IngressClass, the ingress-nginx layer, extraArgs. Each
class flag only when it differs from the controller's default, so the default render stays that of deploy/.
*/}}
{{- define "envoy-ingress.sharedArgs" -}}
{{- $class := .Values.controller.ingressClassResource -}}
{{- if ne $class.name "envoy-ingress" }}
- --ingress-class={{ $class.name }}
{{- end }}
{{- if ne $class.controllerValue "envoy-ingress.io/ingress-controller" }}
- --controller-name={{ $class.controllerValue }}
{{- end }}
{{- if .Values.controller.nginxAnnotations }}
- --nginx-annotations
{{- end }}
{{- with .Values.controller.nginxConfigMap }}
- --nginx-configmap={{ . }}
{{- end }}
{{- if .Values.controller.manageServiceIngress }}
- --manage-service-ingress
{{- end }}
{{- with .Values.controller.gatewayPortRange }}
- --gateway-port-range={{ . }}
{{- /* The selector of the Envoy Service (service.yaml): its ready endpoints are the Envoy pods. */}}
{{- if eq $.Values.variant "split" }}
- --gateway-service-selector=app.kubernetes.io/name={{ include "envoy-ingress.name" $ }},app.kubernetes.io/component=envoy
{{- else if ne (include "envoy-ingress.name" $) "envoy-ingress" }}
- --gateway-service-selector=app.kubernetes.io/name={{ include "envoy-ingress.name" $ }}
{{- end }}
{{- end }}
{{- range $flag, $value := .Values.controller.extraArgs }}
{{- if eq (toString $value) "true" }}
- --{{ $flag }}
{{- else }}
- --{{ $flag }}={{ $value }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Pod template annotations of the pods that run the controller: Prometheus' when metrics are on. */}}
{{- define "envoy-ingress.controllerPodAnnotations" -}}
{{- $annotations := dict -}}
{{- if .Values.controller.metrics.enabled -}}
{{- $_ := set $annotations "prometheus.io/scrape" "true" -}}
{{- $_ := set $annotations "prometheus.io/port" (toString .Values.controller.metrics.port) -}}
{{- end -}}
{{- $annotations = merge (deepCopy .Values.controller.podAnnotations) $annotations -}}
{{- with $annotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* nodeSelector, tolerations and affinity of a pod spec. Argument: the values holding them. */}}
{{- define "envoy-ingress.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The Envoy container's args: `--flag value`, not `--flag=value`, on Envoy's command line. */}}
{{- define "envoy-ingress.envoyArgs" -}}
- --config-path
- /etc/envoy/bootstrap.yaml
- --log-level
- {{ .Values.envoy.logLevel }}
- --drain-time-s
- "15"
- --drain-strategy
- gradual
{{- end -}}

{{/* The securityContext of a container running as 65532 (every one but edge-nodes' Envoy). */}}
{{- define "envoy-ingress.nonRootContainerSecurity" -}}
runAsUser: 65532
runAsGroup: 65532
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
capabilities:
  drop: ["ALL"]
{{- end -}}

{{/*
The API token (it can read every TLS Secret of the cluster) as a volume for the controller container only: the
internet-facing Envoy of the same pod gets none (the pod has automountServiceAccountToken: false). The layout of
the kubelet's own kube-api-access volume.
*/}}
{{- define "envoy-ingress.apiTokenVolume" -}}
- name: kube-api-access
  projected:
    defaultMode: 0444
    sources:
      - serviceAccountToken:
          path: token
          expirationSeconds: 3607
      - configMap:
          name: kube-root-ca.crt
          items:
            - key: ca.crt
              path: ca.crt
      - downwardAPI:
          items:
            - path: namespace
              fieldRef:
                fieldPath: metadata.namespace
{{- end -}}

{{- define "envoy-ingress.apiTokenMount" -}}
- name: kube-api-access
  mountPath: /var/run/secrets/kubernetes.io/serviceaccount
  readOnly: true
{{- end -}}
