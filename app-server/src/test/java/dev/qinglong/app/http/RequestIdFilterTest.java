package dev.qinglong.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/** The request id: a random version 4 UUID of the server's own, one per request. */
class RequestIdFilterTest {
  private static final String CANONICAL =
      "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";

  @Test
  void everyIdIsACanonicalVersion4Variant2Uuid() {
    for (int i = 0; i < 10_000; i++) {
      String id = RequestIdFilter.newId();
      assertThat(id).matches(CANONICAL);
      UUID parsed = UUID.fromString(id);
      assertThat(parsed.version()).isEqualTo(4);
      assertThat(parsed.variant()).isEqualTo(2);
      assertThat(parsed.toString()).isEqualTo(id);
    }
  }

  @Test
  void idsMadeOnManyThreadsAtOnceNeverRepeat() throws Exception {
    int threads = 8;
    int each = 20_000;
    Set<String> seen = ConcurrentHashMap.newKeySet();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
                for (int i = 0; i < each; i++) {
                  seen.add(RequestIdFilter.newId());
                }
              });
      w.start();
      workers.add(w);
    }
    start.countDown();
    for (Thread w : workers) {
      w.join();
    }
    assertThat(seen).hasSize(threads * each);
  }

  @Test
  void theIdIsInTheHeaderAndTheMdcWhileServingAndGoneAfter() throws Exception {
    MockHttpServletRequest request = new MockHttpServletRequest("GET", "/v1/x");
    MockHttpServletResponse response = new MockHttpServletResponse();
    String[] during = new String[2];
    request.addHeader(RequestIdFilter.HEADER, "client-chosen");
    new RequestIdFilter()
        .doFilter(
            request,
            response,
            new MockFilterChain() {
              @Override
              public void doFilter(
                  jakarta.servlet.ServletRequest req, jakarta.servlet.ServletResponse res) {
                during[0] = MDC.get(RequestIdFilter.MDC_KEY);
                during[1] = RequestIdFilter.currentInstance();
              }
            });
    String id = response.getHeader(RequestIdFilter.HEADER);
    assertThat(id).matches(CANONICAL).isNotEqualTo("client-chosen");
    assertThat(during[0]).isEqualTo(id);
    assertThat(during[1]).isEqualTo("urn:uuid:" + id);
    assertThat(MDC.get(RequestIdFilter.MDC_KEY)).isNull();
  }
}
