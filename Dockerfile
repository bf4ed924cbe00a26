# syntax=docker/dockerfile:1
# QingLong control plane image: ghcr.io/qinglong/qinglong-control-plane:<version>
#   docker build -t ghcr.io/qinglong/qinglong-control-plane:0.1.0 .
# The Spring Boot jar of app-server is split into its layers (dependencies change rarely, the
# application often), so a rebuild after a code change re-pushes only the last layer.

FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY . .
RUN ./mvnw -B -q -pl app-server -am package -DskipTests \
 && cp "$(ls app-server/target/app-server-*.jar | grep -v '\.original$' | head -n 1)" /tmp/app.jar
WORKDIR /layers
RUN java -Djarmode=tools -jar /tmp/app.jar extract --layers --launcher --destination /layers

FROM eclipse-temurin:17-jre
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
ENV QINGLONG_DATA_DIR=/var/lib/qinglong
EXPOSE 8080
ENTRYPOINT ["java", "org.springframework.boot.loader.launch.JarLauncher"]
