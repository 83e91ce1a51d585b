{{/* The chart's name, cut to 63 characters (a DNS label). */}}
{{- define "millrace.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name; the names of the roles' objects start with it. */}}
{{- define "millrace.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "millrace.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "millrace.labels" -}}
helm.sh/chart: {{ include "millrace.chart" . }}
{{ include "millrace.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: millrace
{{- end }}

{{- define "millrace.selectorLabels" -}}
app.kubernetes.io/name: {{ include "millrace.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of one component; call with (dict "root" $ "component" "executor"). */}}
{{- define "millrace.componentLabels" -}}
{{ include "millrace.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "millrace.componentSelectorLabels" -}}
{{ include "millrace.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "millrace.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "millrace.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "millrace.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "millrace.secretName" -}}
{{- default (printf "%s-credentials" (include "millrace.fullname" .)) .Values.existingSecret }}
{{- end }}

{{- define "millrace.configMapName" -}}
{{- printf "%s-config" (include "millrace.fullname" .) }}
{{- end }}

{{/* Where every role mounts its configuration, state and Kafka TLS files. */}}
{{- define "millrace.configFile" -}}/etc/millrace/millrace.yaml{{- end }}
{{- define "millrace.stateDir" -}}/var/lib/millrace{{- end }}
{{- define "millrace.kafkaTlsDir" -}}/etc/millrace/kafka-tls{{- end }}

{{/* Pod annotations of a role: the config's checksum (a changed config restarts the pods), scrape annotations. */}}
{{- define "millrace.podAnnotations" -}}
{{- $root := .root -}}
checksum/config: {{ include "millrace.configYaml" $root | sha256sum }}
{{- if not $root.Values.existingSecret }}
checksum/secret: {{ pick $root.Values "auth" "kafka" | toJson | sha256sum }}
{{- end }}
{{- if $root.Values.metrics.podAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ $root.Values.managementPort | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- with $root.Values.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- with .role.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
The launcher's arguments common to every role: the config file. The Kafka secrets come from the
environment (MILLRACE_KAFKA_SASL_JAAS_CONFIG is kafka.sasl.jaas.config), never from the arguments.
*/}}
{{- define "millrace.commonArgs" -}}
- --config
- {{ include "millrace.configFile" . }}
{{- end }}

{{/* The key of SECRET inputs, for the roles that encrypt (gateway) or decrypt (workers) them. */}}
{{- define "millrace.encryptionKeyEnv" -}}
{{- dict "name" "MILLRACE_ENCRYPTION_KEY" "valueFrom" (dict "secretKeyRef" (dict "name" (include "millrace.secretName" .) "key" "encryption-key" "optional" true)) | toJson }}
{{- end }}

{{- define "millrace.secretEnv" -}}
{{- $secret := include "millrace.secretName" . -}}
{{- if .Values.kafka.sasl.enabled }}
- name: MILLRACE_KAFKA_SASL_JAAS_CONFIG
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: kafka-sasl-jaas-config
{{- end }}
{{- if .Values.kafka.tls.enabled }}
- name: MILLRACE_KAFKA_SSL_TRUSTSTORE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: kafka-ssl-truststore-password
{{- if .Values.kafka.tls.keystore.enabled }}
- name: MILLRACE_KAFKA_SSL_KEYSTORE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: kafka-ssl-keystore-password
- name: MILLRACE_KAFKA_SSL_KEY_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: kafka-ssl-key-password
{{- end }}
{{- end }}
{{- end }}

{{/*
One role's container, volumes excepted. Call with
(dict "root" $ "role" <the role's values> "component" "executor" "args" (list ...) "env" (list ...) "ports" (list ...)).
*/}}
{{- define "millrace.container" -}}
{{- $root := .root -}}
- name: {{ .component }}
  image: {{ include "millrace.image" $root | quote }}
  imagePullPolicy: {{ $root.Values.image.pullPolicy }}
  args:
    - {{ .roleCommand | default .component }}
    {{- include "millrace.commonArgs" $root | nindent 4 }}
    {{- range .args }}
    - {{ . | quote }}
    {{- end }}
    {{- range .role.extraArgs }}
    - {{ . | quote }}
    {{- end }}
  env:
    - name: MILLRACE_JAVA_OPTS
      value: {{ $root.Values.javaOpts | quote }}
    {{- with (include "millrace.secretEnv" $root | trim) }}
    {{- . | nindent 4 }}
    {{- end }}
    {{- with .env }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- with .role.extraEnv }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  ports:
    {{- with .ports }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    - name: management
      containerPort: {{ $root.Values.managementPort }}
      protocol: TCP
  startupProbe:
    httpGet:
      path: /health/live
      port: management
    {{- toYaml $root.Values.probes.startup | nindent 4 }}
  livenessProbe:
    httpGet:
      path: /health/live
      port: management
    {{- toYaml $root.Values.probes.liveness | nindent 4 }}
  readinessProbe:
    httpGet:
      path: /health
      port: management
    {{- toYaml $root.Values.probes.readiness | nindent 4 }}
  {{- with .role.resources }}
  resources:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $root.Values.securityContext }}
  securityContext:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  volumeMounts:
    - name: config
      mountPath: /etc/millrace/millrace.yaml
      subPath: millrace.yaml
      readOnly: true
    - name: state
      mountPath: {{ include "millrace.stateDir" $root }}
    - name: tmp
      mountPath: /tmp
    {{- if $root.Values.kafka.tls.enabled }}
    - name: kafka-tls
      mountPath: {{ include "millrace.kafkaTlsDir" $root }}
      readOnly: true
    {{- end }}
    {{- with .mounts }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}

{{/* The pod-level settings shared by every role. Call with (dict "root" $ "role" <the role's values>). */}}
{{- define "millrace.podSpec" -}}
{{- $root := .root -}}
serviceAccountName: {{ include "millrace.serviceAccountName" $root }}
automountServiceAccountToken: {{ $root.Values.serviceAccount.automountServiceAccountToken }}
{{- with $root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $root.Values.podSecurityContext }}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (.role.nodeSelector | default $root.Values.nodeSelector) }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (.role.tolerations | default $root.Values.tolerations) }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (.role.affinity | default $root.Values.affinity) }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* The volumes every role mounts; the executor's state volume comes from its claim template instead. */}}
{{- define "millrace.volumes" -}}
{{- $root := .root -}}
- name: config
  configMap:
    name: {{ include "millrace.configMapName" $root }}
{{- if .stateEmptyDir }}
- name: state
  emptyDir: {}
{{- end }}
- name: tmp
  emptyDir: {}
{{- if $root.Values.kafka.tls.enabled }}
- name: kafka-tls
  secret:
    secretName: {{ $root.Values.kafka.tls.secretName }}
{{- end }}
{{- end }}

{{/* Pod labels of a role. */}}
{{- define "millrace.podLabels" -}}
{{ include "millrace.componentLabels" (dict "root" .root "component" .component) }}
{{- with .root.Values.podLabels }}
{{ toYaml . }}
{{- end }}
{{- with .role.podLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* millrace.yaml, the configuration every role reads: from kafka.*, config and the chart's fixed paths. */}}
{{- define "millrace.configYaml" -}}
{{- $kafka := dict }}
{{- $tls := .Values.kafka.tls }}
{{- if and .Values.kafka.sasl.enabled $tls.enabled }}
{{- $_ := set $kafka "security.protocol" "SASL_SSL" }}
{{- else if .Values.kafka.sasl.enabled }}
{{- $_ := set $kafka "security.protocol" "SASL_PLAINTEXT" }}
{{- else if $tls.enabled }}
{{- $_ := set $kafka "security.protocol" "SSL" }}
{{- end }}
{{- if .Values.kafka.sasl.enabled }}
{{- $_ := set $kafka "sasl.mechanism" .Values.kafka.sasl.mechanism }}
{{- end }}
{{- if $tls.enabled }}
{{- if not $tls.secretName }}
{{- fail "kafka.tls.enabled needs kafka.tls.secretName: the Secret holding the truststore" }}
{{- end }}
{{- $_ := set $kafka "ssl.truststore.location" (printf "%s/%s" (include "millrace.kafkaTlsDir" .) $tls.truststore.key) }}
{{- $_ := set $kafka "ssl.truststore.type" $tls.truststore.type }}
{{- if $tls.keystore.enabled }}
{{- $_ := set $kafka "ssl.keystore.location" (printf "%s/%s" (include "millrace.kafkaTlsDir" .) $tls.keystore.key) }}
{{- $_ := set $kafka "ssl.keystore.type" $tls.keystore.type }}
{{- end }}
{{- end }}
{{- range $key, $value := .Values.kafka.properties }}
{{- $_ := set $kafka $key (toString $value) }}
{{- end }}
{{- $config := dict
  "bootstrap-servers" .Values.kafka.bootstrapServers
  "topic-prefix" .Values.kafka.topicPrefix
  "partitions" .Values.kafka.partitions
  "replication-factor" .Values.kafka.replicationFactor
  "min-insync-replicas" .Values.kafka.minInsyncReplicas
  "state-dir" (include "millrace.stateDir" .)
  "port" .Values.gateway.port
  "management-port" .Values.managementPort }}
{{- $extra := omit .Values.config "kafka" }}
{{- $config = merge $extra $config }}
{{- range $key, $value := (get .Values.config "kafka" | default dict) }}
{{- $_ := set $kafka $key (toString $value) }}
{{- end }}
{{- if $kafka }}
{{- $_ := set $config "kafka" $kafka }}
{{- end }}
{{- toYaml $config }}
{{- end }}
