# syntax=docker/dockerfile:1.7
# QingLong control plane image: ghcr.io/qinglong/qinglong-control-plane:<version>
#   DOCKER_BUILDKIT=1 docker build -t ghcr.io/qinglong/qinglong-control-plane:0.1.0 .
# (BuildKit is needed for the cache mount; it is the default builder of current Docker.)
#
# Base images are pinned by the digest of their multi-arch index, so a rebuild of the same source
# gets the same JDK/JRE. The two digests below were recorded for eclipse-temurin:17-jdk and
# :17-jre in October 2026 from `docker buildx imagetools inspect`; they were NOT re-resolved on
# the machine that wrote this file (no registry access there). Before a release, check them and
# move them forward deliberately:
#   docker buildx imagetools inspect eclipse-temurin:17-jdk --format '{{json .Manifest.Digest}}'
#   docker buildx imagetools inspect eclipse-temurin:17-jre --format '{{json .Manifest.Digest}}'
# or override without editing: --build-arg JRE_IMAGE=eclipse-temurin:17-jre@sha256:<digest>
ARG JDK_IMAGE=eclipse-temurin:17-jdk@sha256:5d6042fb8cdc14d614e4e421f52e3211fc5aeadddce44cbf9de8ed37c791f824
ARG JRE_IMAGE=eclipse-temurin:17-jre@sha256:207ecae0b2b104dfc6dfa763d1e9cd2041cb344800a180e24cb1a28ed533ff90

FROM ${JDK_IMAGE} AS build
WORKDIR /src
# 1. The build definition only: the wrapper and every module's pom (Maven reads every module of
#    the reactor). This layer, and the dependency download below, change only when a pom does.
COPY mvnw ./
COPY .mvn/ .mvn/
COPY pom.xml ./
COPY quota-core/pom.xml quota-core/
COPY quota-test-kit/pom.xml quota-test-kit/
COPY gateway-lease/pom.xml gateway-lease/
COPY quota-jdbc/pom.xml quota-jdbc/
COPY quota-backend/pom.xml quota-backend/
COPY quota-sqlite/pom.xml quota-sqlite/
COPY quota-postgres/pom.xml quota-postgres/
COPY app-server/pom.xml app-server/
COPY src-test-ha/pom.xml src-test-ha/
# 2. Dependencies and plugins into a BuildKit cache mount (kept between builds, never in a layer).
#    Best effort on purpose: go-offline cannot resolve every plugin a lifecycle binds later, and
#    what it misses the package step below fetches into the same cache.
RUN --mount=type=cache,target=/root/.m2,id=qinglong-m2 \
    ./mvnw -B -q -pl app-server -am dependency:go-offline -DexcludeReactor=true \
 || echo "dependency prefetch incomplete; the package step resolves the rest"
# 3. The sources, then the build, with the same cache.
COPY . .
RUN --mount=type=cache,target=/root/.m2,id=qinglong-m2 \
    ./mvnw -B -q -pl app-server -am package -DskipTests \
 && cp "$(ls app-server/target/app-server-*.jar | grep -v '\.original$' | head -n 1)" /tmp/app.jar
# The Spring Boot jar split into its layers (dependencies change rarely, the application often),
# so a rebuild after a code change re-pushes only the last layer.
WORKDIR /layers
RUN java -Djarmode=tools -jar /tmp/app.jar extract --layers --launcher --destination /layers

FROM ${JRE_IMAGE}
LABEL org.opencontainers.image.title="qinglong-control-plane" \
      org.opencontainers.image.source="https://github.com/qinglong/qinglong-control-plane"
# A fixed, unprivileged uid/gid that the Kubernetes securityContext (runAsUser 10001) matches.
RUN groupadd --system --gid 10001 qinglong \
 && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/qinglong --no-create-home \
      --shell /usr/sbin/nologin qinglong \
 && mkdir -p /var/lib/qinglong \
 && chown 10001:10001 /var/lib/qinglong
WORKDIR /app
COPY --from=build /layers/dependencies/ ./
COPY --from=build /layers/spring-boot-loader/ ./
COPY --from=build /layers/snapshot-dependencies/ ./
COPY --from=build /layers/application/ ./
USER 10001:10001
ENV QINGLONG_DATADIR=/var/lib/qinglong
# The app's own default is 127.0.0.1 (safe on a workstation); in a container the port must be
# reachable from outside the container's network namespace. The manifests set it too.
ENV SERVER_ADDRESS=0.0.0.0
# Defaults for `docker run`; the Kubernetes manifests replace them with flags sized from the
# container's CPU limit (deploy/base: JAVA_TOOL_OPTIONS with -XX:ActiveProcessorCount).
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError"
EXPOSE 8080
ENTRYPOINT ["java", "org.springframework.boot.loader.launch.JarLauncher"]
