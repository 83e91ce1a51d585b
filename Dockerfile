# Millrace container image. Build the jar first, then the image, from the repository's root:
#   ./mvnw -B -pl app -am package -DskipTests
#   docker build -t millrace:0.1.0 .        (or: podman build / buildah bud --format docker)
# Without registry access, deploy/build-image builds this same file on a base it makes itself
# from Debian packages and a jlinked Java runtime (see docs/kubernetes.md, "The image").
#
# Run a role: docker run millrace:0.1.0 executor --config /etc/millrace/millrace.yaml
# The entrypoint is the launcher bin/millrace; the arguments are the role and its options.

# Any image with a Java 21+ runtime whose home is JAVA_HOME, bash, and useradd/groupadd.
ARG BASE_IMAGE=eclipse-temurin:25-jre
FROM ${BASE_IMAGE}
LABEL org.opencontainers.image.title="Millrace" \
      org.opencontainers.image.description="Millrace workflow engine; the argument is the role: executor, worker, gateway, triggers or standalone"

# A fixed non-root user; Kubernetes' runAsUser/fsGroup can name the same ids. The working directory
# is also writable by group 0, for platforms that run images under an arbitrary uid in group 0.
RUN groupadd --gid 10001 millrace \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /var/lib/millrace \
      --shell /usr/sbin/nologin millrace \
 && mkdir -p /var/lib/millrace \
 && chown 10001:0 /var/lib/millrace \
 && chmod 0775 /var/lib/millrace

COPY bin/millrace bin/java-home deploy/healthcheck /opt/millrace/bin/
COPY app/target/millrace.jar /opt/millrace/lib/millrace.jar

# MILLRACE_JAR: the launcher runs this jar and never builds one.
# MILLRACE_JAVA_OPTS: the heap follows the container's memory limit (container support is on by
# default in Java 21+); setting the variable replaces these options, so keep them when you add any.
ENV MILLRACE_JAR=/opt/millrace/lib/millrace.jar \
    MILLRACE_JAVA_OPTS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError" \
    PATH=/opt/millrace/bin:$PATH

USER 10001:10001
# Relative paths land here: the data-dir "data", and the state-dir default under it (data/state).
WORKDIR /var/lib/millrace
# 8080: the gateway's REST API; 8081: the management port (/metrics, /health).
EXPOSE 8080 8081

# GET /health on the management port (8081, or MILLRACE_MANAGEMENT_PORT when set there; a port set
# in the config file instead: override with --health-cmd "/opt/millrace/bin/healthcheck <port>").
# Docker and Podman run it; Kubernetes ignores it and uses the chart's probes instead.
HEALTHCHECK --interval=15s --timeout=5s --start-period=90s --retries=3 \
  CMD ["/opt/millrace/bin/healthcheck"]

ENTRYPOINT ["/opt/millrace/bin/millrace"]
CMD ["--help"]
