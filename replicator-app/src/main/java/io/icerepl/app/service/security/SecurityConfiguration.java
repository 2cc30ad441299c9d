package io.icerepl.app.service.security;

import io.icerepl.app.logging.Redaction;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.security.web.header.writers.ReferrerPolicyHeaderWriter.ReferrerPolicy;

/**
 * Who may call the HTTP API. Health answers everyone (its details only the token's holder); the
 * status API and Prometheus reveal bucket names and errors, so they need the token unless {@code
 * replicator.api.public-status} is set; everything else, every mutation included, always needs it.
 * Stateless: no session, no cookie, no login form, so a browser holds nothing a cross-site request
 * could ride on, and no CSRF token is needed.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ApiProperties.class)
class SecurityConfiguration {
  private static final Logger LOG = LoggerFactory.getLogger(SecurityConfiguration.class);

  /**
   * The status page's scripts and styles come from its own files on this origin, and it talks to
   * this origin only: no inline script runs, so markup injected through a table name or an error
   * message stays text, and nothing leaves for another host. The page sets styles only through the
   * DOM, which a policy does not restrict.
   */
  static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
          + " img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  @Bean
  ApiToken apiToken(ApiProperties properties) {
    Optional<String> token = Optional.empty();
    if (ApiProperties.has(properties.token())) {
      token = Optional.of(properties.token());
    } else if (ApiProperties.has(properties.tokenSecretId())) {
      token = Optional.of(SecretsManagerToken.read(properties));
      LOG.info("API token read from secret {}", properties.tokenSecretId());
    } else {
      LOG.warn(
          "No API token configured (replicator.api.token or replicator.api.token-secret-id): "
              + "only /actuator/health and the status page answer{}; promote, fail back, expire"
              + " and verify are refused",
          properties.publicStatus() ? ", with the status API and Prometheus" : "");
    }
    token.ifPresent(Redaction::secret);
    return new ApiToken(properties.tokenName(), token);
  }

  @Bean
  SecurityFilterChain apiSecurity(HttpSecurity http, ApiProperties properties, ApiToken token)
      throws Exception {
    http.csrf(AbstractHttpConfigurer::disable)
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .httpBasic(AbstractHttpConfigurer::disable)
        .formLogin(AbstractHttpConfigurer::disable)
        .logout(AbstractHttpConfigurer::disable)
        .requestCache(AbstractHttpConfigurer::disable)
        // on every answer: the page's address (and so the service's) is not sent on to anyone
        .headers(
            headers ->
                headers
                    .contentSecurityPolicy(csp -> csp.policyDirectives(CONTENT_SECURITY_POLICY))
                    .referrerPolicy(referrer -> referrer.policy(ReferrerPolicy.NO_REFERRER)))
        .addFilterBefore(new BearerTokenFilter(token), AnonymousAuthenticationFilter.class)
        .exceptionHandling(
            e ->
                e.authenticationEntryPoint(
                    (request, response, failure) -> {
                      if (!HttpMethod.GET.matches(request.getMethod())) {
                        LOG.warn(
                            "Refused {} {} from {}: no bearer token",
                            request.getMethod(),
                            request.getRequestURI(),
                            request.getRemoteAddr());
                      }
                      JsonErrors.write(
                          response,
                          HttpServletResponse.SC_UNAUTHORIZED,
                          "Bearer",
                          "Cannot authorize "
                              + request.getMethod()
                              + " "
                              + request.getRequestURI()
                              + ": send the API token as 'Authorization: Bearer <token>'");
                    }))
        .authorizeHttpRequests(
            requests -> {
              // an error page is rendered for a request already let through
              requests.dispatcherTypeMatchers(DispatcherType.ERROR).permitAll();
              requests
                  .requestMatchers(HttpMethod.GET, "/actuator/health", "/actuator/health/**")
                  .permitAll();
              // the status page holds no data: it asks the status API, with the same token
              requests
                  .requestMatchers(HttpMethod.GET, "/", "/index.html", "/status.js", "/status.css")
                  .permitAll();
              if (properties.publicStatus()) {
                requests
                    .requestMatchers(
                        HttpMethod.GET,
                        "/api/replications",
                        "/api/replications/**",
                        "/api/groups",
                        "/api/groups/**",
                        "/actuator/prometheus")
                    .permitAll();
              }
              requests.anyRequest().authenticated();
            });
    return http.build();
  }
}
