# mmkit: the bot and its paper exchange. Build: docker build -t mmkit .
# Run the paper exchange: docker run -p 8080:8080 mmkit exchange --host 0.0.0.0 --port 8080
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts
COPY bin ./bin
COPY src ./src
COPY config ./config
COPY strategies ./strategies
COPY tsconfig.json ./
USER node
ENTRYPOINT ["node", "bin/mmkit.js"]
CMD ["exchange", "--host", "0.0.0.0", "--port", "8080"]
