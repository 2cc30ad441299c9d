package io.icerepl.app.service.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authenticates a request carrying {@code Authorization: Bearer <token>} as the token's holder. The
 * token is read from that header only, never from a cookie or a parameter, so a page in a browser
 * cannot send it: a cross-site form gets 401. A wrong token is refused at once; a request without
 * one goes on unauthenticated, and the authorization rules decide.
 */
final class BearerTokenFilter extends OncePerRequestFilter {
  private static final Logger LOG = LoggerFactory.getLogger(BearerTokenFilter.class);
  private static final String PREFIX = "Bearer ";

  private final ApiToken token;

  BearerTokenFilter(ApiToken token) {
    this.token = token;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String header = request.getHeader("Authorization");
    if (header == null) {
      chain.doFilter(request, response);
      return;
    }
    if (!header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())
        || !token.matches(header.substring(PREFIX.length()).strip())) {
      LOG.warn(
          "Refused {} {} from {}: invalid bearer token",
          request.getMethod(),
          request.getRequestURI(),
          request.getRemoteAddr());
      JsonErrors.write(
          response,
          HttpServletResponse.SC_UNAUTHORIZED,
          "Bearer error=\"invalid_token\"",
          "Cannot authenticate the request: invalid bearer token");
      return;
    }
    SecurityContext context = SecurityContextHolder.createEmptyContext();
    context.setAuthentication(
        UsernamePasswordAuthenticationToken.authenticated(
            token.name(), null, List.of(new SimpleGrantedAuthority("ROLE_OPERATOR"))));
    SecurityContextHolder.setContext(context);
    try {
      chain.doFilter(request, response);
    } finally {
      SecurityContextHolder.clearContext();
    }
  }
}
